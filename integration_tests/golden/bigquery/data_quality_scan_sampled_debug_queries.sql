-- the debug queries of rule scan-row-data-ref, as handed out (${data()} expanded)
-- debug query: sampled rows
select count(*) as n from (select * from `dq-local`.`dq_it`.`sample_rows` tablesample system (50 percent) where (grp <> 'x'));
-- debug query: a self-join
select count(*) as n from (select * from (select * from (select * from `dq-local`.`dq_it`.`sample_rows`) as dq_source where (grp <> 'x')) dq_filtered where rand() < 0.5) d join (select * from (select * from (select * from `dq-local`.`dq_it`.`sample_rows`) as dq_source where (grp <> 'x')) dq_filtered where rand() < 0.5) e on d.id = e.id;
