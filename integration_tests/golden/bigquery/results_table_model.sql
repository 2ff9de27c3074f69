-- `dbt build` of the package model dataplex_dq_results (first run)

  
    

    create or replace table `dq-local`.`dq_it`.`dataplex_dq_results`
      
    partition by timestamp_trunc(job_start_time, day)
    cluster by dbt_invocation_id, data_source

    
    OPTIONS()
    as (
      

select
  cast(null as STRUCT<resource_name STRING, project_id STRING, location STRING, data_scan_id STRING, display_name STRING>) as data_quality_scan,
  cast(null as STRUCT<resource_name STRING, dataplex_entity_project_id STRING, dataplex_entity_project_number INT64, dataplex_lake_id STRING, dataplex_zone_id STRING, dataplex_entity_id STRING, table_project_id STRING, table_project_number INT64, dataset_id STRING, table_id STRING>) as data_source,
  cast(null as STRING) as data_quality_job_id,
  cast(null as JSON) as data_quality_job_configuration,
  cast(null as JSON) as job_labels,
  cast(null as TIMESTAMP) as job_start_time,
  cast(null as TIMESTAMP) as job_end_time,
  cast(null as STRUCT<passed BOOL, score FLOAT64, incremental_start STRING, incremental_end STRING>) as job_quality_result,
  cast(null as JSON) as job_dimension_result,
  cast(null as INT64) as job_rows_scanned,
  cast(null as STRING) as rule_name,
  cast(null as STRING) as rule_description,
  cast(null as STRING) as rule_type,
  cast(null as STRING) as rule_evaluation_type,
  cast(null as STRING) as rule_column,
  cast(null as STRING) as rule_dimension,
  cast(null as FLOAT64) as rule_threshold_percent,
  cast(null as JSON) as rule_parameters,
  cast(null as BOOL) as rule_passed,
  cast(null as INT64) as rule_rows_evaluated,
  cast(null as INT64) as rule_rows_passed,
  cast(null as FLOAT64) as rule_rows_passed_percent,
  cast(null as INT64) as rule_rows_null,
  cast(null as STRING) as rule_failed_records_query,
  cast(null as TIMESTAMP) as created_on,
  cast(null as TIMESTAMP) as last_updated,
  cast(null as INT64) as rule_assertion_row_count,
  cast(null as ARRAY<STRUCT<description STRING, sql_statement STRING, debug_query_results ARRAY<STRUCT<name STRING, type STRING, value STRING>>>>) as debug_queries,
  cast(null as BOOL) as rule_suspended,
  cast(null as JSON) as rule_attributes,
  cast(null as STRING) as rule_status,
  cast(null as STRING) as rule_message,
  cast(null as FLOAT64) as rule_statistic_value,
  cast(null as FLOAT64) as job_row_weighted_score,
  cast(null as STRING) as dbt_invocation_id,
  cast(null as STRING) as dbt_test_unique_id,
  cast(null as STRING) as dbt_node_unique_id,
  cast(null as JSON) as job_notification_result,
  cast(null as STRING) as rule_statistic_value_text,
  cast(null as STRING) as dbt_target,
  cast(null as STRING) as job_declared_rules,
  cast(null as INT64) as job_declared_rule_count,
  cast(null as INT64) as job_run_rule_count,
  cast(null as FLOAT64) as rule_execution_seconds,
  cast(null as INT64) as rule_bytes_processed,
  cast(null as INT64) as rule_bytes_billed,
  cast(null as INT64) as rule_slot_ms,
  cast(null as FLOAT64) as job_execution_seconds,
  cast(null as INT64) as job_bytes_processed,
  cast(null as INT64) as job_bytes_billed,
  cast(null as INT64) as job_slot_ms,
  cast(null as INT64) as job_query_count,
  cast(null as JSON) as dbt_test_cost
limit 0
    );
