"""Jobs, tags, filters, schedules and the webhook secret against a fake hub."""
from __future__ import annotations

import json
import unittest
import urllib.parse
from unittest import mock

import hostgate
from hostgate import jobs as jobs_mod
from hostgate.jobs import FilterQuery, JobRequest, JobTarget, JobWaves, ScheduleRequest, shell_operation

from tests.fakehub import FakeHub

KEY = "ak_x.y"


def job(state="running", succeeded=0, finished=False):
    return {"id": "j1", "state": state, "host_count": 2, "totals": {"succeeded": succeeded, "running": 2 - succeeded},
            "finished_at": "2026-01-01T00:01:00Z" if finished else None, "charged": 1.5}


class RequestsTest(unittest.TestCase):
    """Each method sends the route, method and body the Go SDK sends
    (sdk/go/jobs_test.go TestJobRequests)."""

    def setUp(self) -> None:
        self.hub = FakeHub(lambda r: (200, {}))
        self.c = hostgate.Client(self.hub.url, KEY, timeout=5)

    def tearDown(self) -> None:
        self.hub.close()

    def sent(self, call):
        call()
        r = self.hub.requests[-1]
        body = json.dumps(r.json(), sort_keys=True, separators=(",", ":")) if r.body else ""
        return (r.method + " " + r.path + " " + body).strip()

    def test_routes(self):
        c = self.c
        req = JobRequest(target=JobTarget(tags=["env=prod"]), operation=shell_operation("/bin/sh", "-c uptime", 30),
                         offline="queue", expires_in_s=600, concurrency=5, waves=JobWaves(size=10, pause_s=30, stop_if_failed_pct=20))
        cases = [
            (lambda: c.create_job(req), 'POST /v1/api/jobs {"concurrency":5,"expires_in_s":600,"offline":"queue",'
             '"operation":{"controls":8192,"data":{"args":"-c uptime","timeout_s":30},"path":"/bin/sh"},'
             '"target":{"tags":["env=prod"]},"waves":{"pause_s":30,"size":10,"stop_if_failed_pct":20}}'),
            (lambda: c.dry_run_job(JobRequest(target=JobTarget(host_ids=["h1"]), operation=hostgate.JobOperation(
                controls=hostgate.controls.CTL_SYSTEM_INFO))),
             'POST /v1/api/jobs {"dry_run":true,"operation":{"controls":16777216},"target":{"host_ids":["h1"]}}'),
            (lambda: c.get_job("j/1"), "GET /v1/api/jobs/j%2F1"),
            (lambda: c.list_jobs("running", 10, 20), "GET /v1/api/jobs?limit=10&offset=20&state=running"),
            (lambda: c.list_jobs(), "GET /v1/api/jobs"),
            (lambda: c.list_jobs("running", 10, 0, "AQx"), "GET /v1/api/jobs?cursor=AQx&limit=10&state=running"),
            (lambda: c.list_job_results("j1", "", 5, 0, "AQy"), "GET /v1/api/jobs/j1/results?cursor=AQy&limit=5"),
            (lambda: c.schedule_runs("s1", 3, 0, "AQz"), "GET /v1/api/schedules/s1/runs?cursor=AQz&limit=3"),
            (lambda: c.list_user_webhook_deliveries(5, 0, "AQw"), "GET /v1/api/webhook-deliveries?cursor=AQw&limit=5"),
            (lambda: c.search_hosts(FilterQuery(status="online"), "", 2, 0, "AQv"),
             "GET /v1/api/hosts?cursor=AQv&limit=2&status=online"),
            (lambda: c.cancel_job("j1"), "POST /v1/api/jobs/j1/cancel"),
            (lambda: c.retry_job("j1"), "POST /v1/api/jobs/j1/retry"),
            (lambda: c.retry_job("j1", ["failed", "expired"]), 'POST /v1/api/jobs/j1/retry {"states":["failed","expired"]}'),
            (lambda: c.list_job_results("j1", "failed", 5), "GET /v1/api/jobs/j1/results?limit=5&state=failed"),
            (lambda: c.job_output("j1", "h1"), "GET /v1/api/jobs/j1/results/h1/output"),
            (lambda: c.set_tags("h1", {"env": "prod", "role": ""}), 'PUT /v1/api/hosts/h1/tags {"tags":{"env":"prod","role":""}}'),
            (lambda: c.update_tags(["h1", "h2"], {"env": "prod"}, ["old"]),
             'POST /v1/api/hosts/tags {"add":{"env":"prod"},"host_ids":["h1","h2"],"remove":["old"]}'),
            (lambda: c.search_hosts(FilterQuery(tags=["env=prod", "role"], online=True, os="linux"), "f1", 0, 10),
             "GET /v1/api/hosts?filter_id=f1&limit=50&offset=10&online=true&os=linux&tag=env%3Dprod&tag=role"),
            (lambda: c.get_filter("f1"), "GET /v1/api/filters/f1"),
            (lambda: c.create_filter("prod", FilterQuery(tags=["env=prod"], status="active")),
             'POST /v1/api/filters {"name":"prod","query":{"status":"active","tags":["env=prod"]}}'),
            (lambda: c.update_filter("f1", "renamed"), 'PATCH /v1/api/filters/f1 {"name":"renamed"}'),
            (lambda: c.delete_filter("f1"), "DELETE /v1/api/filters/f1"),
            (lambda: c.create_schedule(ScheduleRequest(name="nightly", cron="0 3 * * *", timezone="Europe/Berlin",
                                                       job=JobRequest(target=JobTarget(filter_id="f1"),
                                                                      operation=shell_operation("/bin/sh", "-c true")))),
             'POST /v1/api/schedules {"cron":"0 3 * * *","job":{"operation":{"controls":8192,"data":{"args":"-c true"},'
             '"path":"/bin/sh"},"target":{"filter_id":"f1"}},"name":"nightly","timezone":"Europe/Berlin"}'),
            (lambda: c.get_schedule("s1"), "GET /v1/api/schedules/s1"),
            (lambda: c.update_schedule("s1", hostgate.ScheduleUpdate(cron="*/5 * * * *", timezone="UTC")),
             'PATCH /v1/api/schedules/s1 {"cron":"*/5 * * * *","timezone":"UTC"}'),
            (lambda: c.pause_schedule("s1"), "POST /v1/api/schedules/s1/pause"),
            (lambda: c.resume_schedule("s1"), "POST /v1/api/schedules/s1/resume"),
            (lambda: c.delete_schedule("s1"), "DELETE /v1/api/schedules/s1"),
            (lambda: c.schedule_runs("s1", 3), "GET /v1/api/schedules/s1/runs?limit=3"),
            (lambda: c.get_webhook_secret(), "GET /v1/api/webhook-secret"),
            (lambda: c.rotate_webhook_secret(), "POST /v1/api/webhook-secret/rotate"),
            (lambda: c.list_user_webhook_deliveries(5, 10), "GET /v1/api/webhook-deliveries?limit=5&offset=10"),
            (lambda: c.list_user_webhook_deliveries(), "GET /v1/api/webhook-deliveries"),
            (lambda: c.retry_user_webhook_delivery("d/1"), "POST /v1/api/webhook-deliveries/d%2F1/retry"),
        ]
        for call, want in cases:
            with self.subTest(want):
                self.assertEqual(self.sent(call), want)


def paged(n):
    def answer(r):
        q = urllib.parse.parse_qs(urllib.parse.urlparse(r.path).query)
        limit, offset = int(q.get("limit", ["50"])[0]), int(q.get("offset", ["0"])[0])
        items = [{"host_id": "h%d" % i, "key": "k%d" % i} for i in range(offset, min(n, offset + limit))]
        return 200, {"items": items, "total": n, "limit": limit, "offset": offset}
    return answer


def by_cursor(n):
    """Answers n items in pages by cursor as the hub does: next_cursor while
    items follow, none on the last page."""
    def answer(r):
        q = urllib.parse.parse_qs(urllib.parse.urlparse(r.path).query)
        limit = int(q.get("limit", ["50"])[0])
        start = int(q["cursor"][0].removeprefix("after-")) + 1 if "cursor" in q else 0
        items = [{"id": "h%d" % i, "host_id": "h%d" % i} for i in range(start, min(n, start + limit))]
        out = {"items": items, "total": n, "limit": limit, "offset": 0}
        if start + limit < n:
            out["next_cursor"] = "after-%d" % (start + limit - 1)
        return 200, out
    return answer


class IterateTest(unittest.TestCase):
    def test_all_hosts_follows_cursors(self):
        with FakeHub(by_cursor(401)) as hub:
            c = hostgate.Client(hub.url, KEY, timeout=5)
            ids = [h.id for h in c.all_hosts(FilterQuery(status="online"))]
            self.assertEqual((len(ids), ids[0], ids[200], ids[-1]), (401, "h0", "h200", "h400"))
            self.assertEqual(len(set(ids)), 401)
            self.assertEqual([r.path for r in hub.requests], [
                "/v1/api/hosts?limit=200&status=online",
                "/v1/api/hosts?cursor=after-199&limit=200&status=online",
                "/v1/api/hosts?cursor=after-399&limit=200&status=online"])
            page = c.search_hosts(FilterQuery(), "", 2)
            self.assertEqual(page.next_cursor, "after-1")
        with FakeHub(by_cursor(400)) as hub:
            self.assertEqual(len(list(hostgate.Client(hub.url, KEY, timeout=5).job_results("j1"))), 400)

    def test_job_results_pages(self):
        with FakeHub(paged(450)) as hub:
            c = hostgate.Client(hub.url, KEY, timeout=5)
            it = c.job_results("j1", "failed")
            self.assertEqual(len(hub.requests), 0, "nothing fetched before iterating")
            ids = [r.host_id for r in it]
            self.assertEqual((len(ids), ids[0], ids[-1]), (450, "h0", "h449"))
            self.assertEqual([r.path for r in hub.requests], [
                "/v1/api/jobs/j1/results?limit=200&state=failed",
                "/v1/api/jobs/j1/results?limit=200&offset=200&state=failed",
                "/v1/api/jobs/j1/results?limit=200&offset=400&state=failed"])
            self.assertIsInstance(c.list_job_results("j1").items[0], hostgate.JobResult)
        with FakeHub(paged(3)) as hub:
            tags = hostgate.Client(hub.url, KEY, timeout=5).list_tags()
            self.assertEqual([t.key for t in tags], ["k0", "k1", "k2"])

    def test_errors_raise(self):
        with FakeHub(lambda r: (404, {"error": "not_found", "message": "job not found"})) as hub:
            with self.assertRaises(hostgate.HostgateError) as cm:
                list(hostgate.Client(hub.url, KEY, timeout=5).job_results("nope"))
            self.assertTrue(hostgate.is_not_found(cm.exception))


class WaitTest(unittest.TestCase):
    def test_until_final(self):
        answers = [job(), job(succeeded=1), job("finished", 2, True)]
        with FakeHub(lambda r: (200, answers.pop(0) if len(answers) > 1 else answers[0])) as hub, \
                mock.patch.object(jobs_mod, "POLL_INTERVAL_S", (0.001, 0.005)):
            j = hostgate.Client(hub.url, KEY, timeout=5).wait_job("j1", 60)
            self.assertTrue(j.final and j.succeeded)
            self.assertEqual((len(hub.requests), j.charged, j.totals.succeeded), (3, 1.5, 2))

    def test_timeout(self):
        with FakeHub(lambda r: (200, job())) as hub, mock.patch.object(jobs_mod, "POLL_INTERVAL_S", (0.001, 0.005)):
            with self.assertRaises(hostgate.JobWaitTimeout) as cm:
                hostgate.Client(hub.url, KEY, timeout=5).wait_job("j1", 0.05)
            self.assertEqual((cm.exception.job.id, cm.exception.job.state), ("j1", "running"))
            self.assertIsInstance(cm.exception, TimeoutError)

    def test_canceled_with_running_runs_is_not_final(self):
        self.assertFalse(hostgate.from_dict(hostgate.Job, {"state": "canceled"}).final)


if __name__ == "__main__":
    unittest.main()
