-- Billing: balances, the ledger of billing events, pricing rules and
-- global settings (the billing mode).
--
-- Amounts are integer units, thousandths of a token, so that fractional
-- prices are exact. A balance row changes only in the transaction that
-- inserts the billing event recording the change, so a balance is always
-- the sum of its user's events; the CHECK keeps it from going negative
-- whatever a writer does.

-- +goose Up
CREATE TABLE billing_balances (
    user_id    text PRIMARY KEY REFERENCES users (id),
    units      bigint NOT NULL CHECK (units >= 0),
    updated_at timestamptz NOT NULL
);

CREATE TABLE billing_events (
    id            text PRIMARY KEY,
    user_id       text NOT NULL REFERENCES users (id),
    kind          text NOT NULL CHECK (kind IN ('charge', 'recharge', 'refund', 'adjust')),
    units         bigint NOT NULL,
    balance_after bigint NOT NULL CHECK (balance_after >= 0),
    rule_code     text NOT NULL DEFAULT '',
    host_id       text NOT NULL DEFAULT '',
    api_key_id    text NOT NULL DEFAULT '',
    reason        text NOT NULL DEFAULT '',
    created_at    timestamptz NOT NULL
);
CREATE INDEX billing_events_user_newest ON billing_events (user_id, created_at DESC, id DESC);
CREATE INDEX billing_events_kind_time ON billing_events (kind, created_at);

CREATE TABLE pricing_rules (
    id          text PRIMARY KEY,
    code        text NOT NULL,
    units       bigint NOT NULL CHECK (units >= 0),
    description text NOT NULL DEFAULT '',
    valid_from  timestamptz NOT NULL,
    valid_until timestamptz,
    created_at  timestamptz NOT NULL,
    CHECK (valid_until IS NULL OR valid_until > valid_from)
);
CREATE INDEX pricing_rules_code_start ON pricing_rules (code, valid_from DESC);

CREATE TABLE settings (
    key   text PRIMARY KEY,
    value text NOT NULL
);
INSERT INTO settings (key, value) VALUES ('billing_mode', 'charging');

INSERT INTO pricing_rules (id, code, units, description, valid_from, created_at) VALUES
    ('00000000-0000-4000-8000-000000000001', 'control.dir.per_call', 1000, 'files/dir', '1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z'),
    ('00000000-0000-4000-8000-000000000002', 'control.file_read.per_call', 500, 'files/text read (STR_RD)', '1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z'),
    ('00000000-0000-4000-8000-000000000003', 'control.file_write.per_call', 1000, 'files/text writes (FILE_MK, FILE_RM, STR_AD, STR_RM)', '1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z'),
    ('00000000-0000-4000-8000-000000000004', 'control.exec_shell.per_call', 5000, 'process/shell', '1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z'),
    ('00000000-0000-4000-8000-000000000005', 'control.exec_program.per_call', 1000, 'process/exec', '1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z'),
    ('00000000-0000-4000-8000-000000000006', 'control.kill_process.per_call', 2000, 'process/kill', '1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z'),
    ('00000000-0000-4000-8000-000000000007', 'control.system_info.per_call', 500, 'system/info', '1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z'),
    ('00000000-0000-4000-8000-000000000008', 'control.system_metrics.per_call', 100, 'system/metrics', '1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z'),
    ('00000000-0000-4000-8000-000000000009', 'control.shell_session.per_op', 100, 'shell/session/*, each call', '1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z'),
    ('00000000-0000-4000-8000-000000000010', 'control.update_l1', 1000, 'PUT hosts/{id}/l1-config', '1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z'),
    ('00000000-0000-4000-8000-000000000011', 'control.zip.per_call', 2000, 'files/zip', '1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z'),
    ('00000000-0000-4000-8000-000000000012', 'control.download.per_call', 2000, 'files/download', '1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z'),
    ('00000000-0000-4000-8000-000000000013', 'control.process_list.per_call', 500, 'process/list', '1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z'),
    ('00000000-0000-4000-8000-000000000014', 'control.service.per_call', 1000, 'service/ctl', '1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z'),
    ('00000000-0000-4000-8000-000000000015', 'control.registry.per_call', 1000, 'registry/rw', '1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z'),
    ('00000000-0000-4000-8000-000000000016', 'control.scheduled_task.per_call', 1000, 'scheduled-task/ctl', '1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z'),
    ('00000000-0000-4000-8000-000000000017', 'control.orchestrate.per_call', 5000, 'orchestrate/start and orchestrate/shutdown', '1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z'),
    ('00000000-0000-4000-8000-000000000018', 'host.query.per_call', 0, 'GET hosts, GET hosts/{id}, POST hosts/{id}/ping', '1970-01-01T00:00:00Z', '1970-01-01T00:00:00Z');

-- +goose Down
DROP TABLE settings;
DROP TABLE pricing_rules;
DROP TABLE billing_events;
DROP TABLE billing_balances;
