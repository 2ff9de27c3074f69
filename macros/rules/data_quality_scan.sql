{#- dataplex_dq.data_quality_scan: a whole Dataplex DataQualitySpec as one dbt test. Every rule of
    `rules` is evaluated in one fused query (one pass over the scope) that returns one metrics row per
    rule; dbt shows one test whose failures are the rules that did not pass.
    Arguments (snake_case or the camelCase of a Dataplex spec file): rules, row_filter / rowFilter,
    sampling_percent / samplingPercent, post_scan_actions / postScanActions,
    catalog_publishing_enabled / catalogPublishingEnabled (catalog publishing, python/dataplex_dq/outputs/catalog.py),
    incremental_field / incrementalField and incremental_lookback / incrementalLookback (incremental
    scans, macros/incremental.sql),
    anomaly_detection / anomalyDetection (anomaly checks appended as rules, macros/anomaly/).
    See README.md#data_quality_scan-one-scan-per-table and macros/scan.sql. -#}
{% test data_quality_scan(model, column_name=none, rules=none, row_filter=none, rowFilter=none, sampling_percent=none, samplingPercent=none, post_scan_actions=none, postScanActions=none, catalog_publishing_enabled=none, catalogPublishingEnabled=none, anomaly_detection=none, anomalyDetection=none, incremental_field=none, incrementalField=none, incremental_lookback=none, incrementalLookback=none) %}
  {{ dataplex_dq.data_quality_scan_test(model, column_name, {
      'rules': rules,
      'row_filter': row_filter, 'rowFilter': rowFilter,
      'sampling_percent': sampling_percent, 'samplingPercent': samplingPercent,
      'post_scan_actions': post_scan_actions, 'postScanActions': postScanActions,
      'catalog_publishing_enabled': catalog_publishing_enabled, 'catalogPublishingEnabled': catalogPublishingEnabled,
      'anomaly_detection': anomaly_detection, 'anomalyDetection': anomalyDetection,
      'incremental_field': incremental_field, 'incrementalField': incrementalField,
      'incremental_lookback': incremental_lookback, 'incrementalLookback': incrementalLookback,
  }, kwargs) }}
{% endtest %}
