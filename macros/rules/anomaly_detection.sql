{#- dataplex_dq.anomaly_detection: volume, freshness and data anomaly checks of a data source, learned
    from its history (docs/SEMANTICS.md §13). The declaration is the test's arguments or, without arguments, the data
    source's meta.dataplex_dq.anomaly_detection: timestamp_column, time_bucket, training_buckets,
    min_training_buckets, sensitivity, seasonality, direction, volume, freshness, data (snake_case or
    camelCase). Each check is one metrics row (one rule of the data source); dbt's failures are the
    anomalous checks. See README.md#anomaly-detection and macros/anomaly/. -#}
{% test anomaly_detection(model, column_name=none) %}
  {{ dataplex_dq.anomaly_detection_test(model, column_name, kwargs) }}
{% endtest %}
