-- the post-hook removes the rows of the jobs it is about to write (idempotent re-export)
merge into `dq-local`.`dq_it`.`dataplex_dq_results` as dq_target
using (select 1 as dq_one) as dq_source
on false
when not matched by source and dq_target.data_quality_job_id in ('job-1', 'job-2') then delete
