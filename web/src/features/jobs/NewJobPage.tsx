import { useNavigate, useSearchParams } from 'react-router';
import { useI18n } from '../../i18n';
import { PageHeader } from '../../ui/PageHeader';
import { useCreateJob } from './hooks';
import { JobForm } from './JobForm';
import { targetFromSearch } from './jobs';

/** /jobs/new?host=…|tag=…|filter=…: the new-job form, the dry-run preview, then the job page. */
export default function NewJobPage() {
  const { t } = useI18n();
  const [sp] = useSearchParams();
  const navigate = useNavigate();
  const create = useCreateJob();
  return (
    <>
      <PageHeader title={t('jobs.newTitle')} />
      <JobForm
        initial={targetFromSearch(sp)}
        runPending={create.isPending}
        runError={create.error}
        onRun={(req) => create.mutate(req, { onSuccess: (job) => void navigate(`/jobs/${encodeURIComponent(job.id)}`) })}
      />
    </>
  );
}
