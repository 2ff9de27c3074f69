{#- The fused builder behind dataplex_dq.data_quality_scan (macros/rules/data_quality_scan.sql).

    1. Declaration: the scan's arguments and each rule of `rules` are read in snake_case or camelCase
       (proto JSON, as in a Dataplex spec file), normalized to the dict shape of rule_test.sql's
       normalize_rule, and validated with validate_rule; errors name the rule by index and name
       ("rule #3 'amount-in-range'"). Rules without a name get `<rule-type>-<column>-<index>`
       (scan_rule_name; recorded for the post-hook at parse time, macros/identity.sql). This is done
       when dbt parses the test; a valid declaration is recorded then, and compile starts from it.
    2. SQL (scan_metrics_sql): one aggregate query over the scope computes every row-level count,
       null count (one per column), statistic and table condition; uniqueness is counted in the same
       query, by window or grouped counts (scan_uniqueness_strategy, macros/scan_cross_db.sql); each
       SQL assertion is one scalar subquery, except on DuckDB a duplicate-key statement provably over
       the same rows as a uniqueness rule's grouping, which reads that one grouping
       (scan_shared_groupings, macros/scan_cross_db.sql). The one aggregate row is then cross joined with the list
       of rule indexes, and each metrics column is a CASE over the rule index, so the rows are produced
       without reading the table again; the rule status follows from `passed` in an outer select. The
       per-rule metric formulas come from rule_metrics_exprs / metrics_columns (macros/metrics.sql),
       the same the per-rule tests use. -#}

{#- The rule types and the fields each takes: the registry, macros/rules/_registry.sql. -#}

{% macro scan_rule_common_keys() %}
  {{ return(['column', 'ignore_null', 'dimension', 'threshold', 'name', 'description', 'suspended', 'debug_queries', 'attributes']) }}
{% endmacro %}

{#- snake_case -> lowerCamelCase, as proto JSON spells field names. -#}
{% macro camel_case(name) %}
  {%- set parts = name.split('_') -%}
  {%- set out = [parts[0]] -%}
  {%- for p in parts[1:] -%}{%- do out.append(p[:1] | upper ~ p[1:]) -%}{%- endfor -%}
  {{ return(out | join('')) }}
{% endmacro %}

{#- The rule type of a declared rule (the first rule-type key found, snake_case or camelCase), or none.
    `keys`: scan_rule_keys(), when the caller has it (a scan reads all its rules with one). -#}
{% macro scan_rule_type_of(raw, keys=none) %}
  {%- if raw is not mapping -%}{{ return(none) }}{%- endif -%}
  {%- set keys = keys or dataplex_dq.scan_rule_keys() -%}
  {%- for t in keys.type_keys if t in raw or keys.camel[t] in raw -%}{{ return(t) }}{%- endfor -%}
  {{ return(none) }}
{% endmacro %}

{#- What reading a declared rule needs, built once per scan (not per rule): the registry (`facts`),
    its rule types in lookup order (`type_keys`), the common fields (`common`), the camelCase of every
    field name (`camel`: snake_case -> lowerCamelCase, as camel_case spells it) and `known`: each
    rule-type key and common field, in either casing -> its snake_case name. -#}
{% macro scan_rule_keys() %}
  {%- set facts = dataplex_dq.rule_types() -%}
  {%- set type_keys = facts.keys() | list -%}
  {%- set common = dataplex_dq.scan_rule_common_keys() -%}
  {%- set names = type_keys + common -%}
  {%- for t in type_keys -%}{%- for p in facts[t].params if p not in names -%}{%- do names.append(p) -%}{%- endfor -%}{%- endfor -%}
  {%- set camel = {} -%}
  {%- for name in names -%}
    {%- set parts = name.split('_') -%}
    {%- set out = [parts[0]] -%}
    {%- for q in parts[1:] -%}{%- do out.append(q[:1] | upper ~ q[1:]) -%}{%- endfor -%}
    {%- do camel.update({name: out | join('')}) -%}
  {%- endfor -%}
  {%- set known = {} -%}
  {%- for k in type_keys + common -%}{%- do known.update({k: k, camel[k]: k}) -%}{%- endfor -%}
  {{ return({'facts': facts, 'type_keys': type_keys, 'common': common, 'camel': camel, 'known': known}) }}
{% endmacro %}

{#- The values of `names` in a mapping, each given under its snake_case or its camelCase key (both at
    once is an error, as in _scan_get): {name: value} for those given (not none). -#}
{% macro _scan_values(mapping, names, camel, where, prefix) %}
  {%- set out = {} -%}
  {%- for key in names -%}
    {%- set c = camel.get(key, key) -%}
    {%- set v = mapping.get(key) -%}
    {%- if v is not none and c != key and mapping.get(c) is not none -%}
      {{ dataplex_dq.raise_rule_error(where, prefix ~ key, "given twice, as '" ~ key ~ "' and as '" ~ c ~ "'") }}
    {%- endif -%}
    {%- set v = v if v is not none else mapping.get(c) -%}
    {%- if v is not none -%}{%- do out.update({key: v}) -%}{%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{% endmacro %}

{#- The name of rule `index` of a scan: its `name`, or `<rule-type>-<column>-<index>` derived from the
    rule type (without `_expectation`, hyphens for underscores), the column (lower case, runs of other
    characters than letters and digits as one hyphen, the two together cut to 55 characters) and the
    position in `rules`: `range-amount-0`, `non-null-customer-id-1`, `table-condition-2`. The
    post-hook reads the name recorded at parse time (macros/identity.sql), never re-derives it. -#}
{% macro scan_rule_name(raw, index, keys=none) %}
  {%- if raw is mapping and raw.get('name') -%}{{ return(raw.get('name')) }}{%- endif -%}
  {%- set rule_type = dataplex_dq.scan_rule_type_of(raw, keys) or 'rule' -%}
  {%- set base = rule_type.replace('_expectation', '').replace('_', '-') -%}
  {%- set column = raw.get('column') if raw is mapping else none -%}
  {%- if column -%}
    {%- set col = modules.re.sub('[^A-Za-z0-9]+', '-', column | string).strip('-') | lower -%}
    {%- if col -%}{%- set base = (base ~ '-' ~ col)[:55].strip('-') -%}{%- endif -%}
  {%- endif -%}
  {{ return(base ~ '-' ~ index) }}
{% endmacro %}

{#- A value given under its snake_case or its camelCase key (both at once is an error). -#}
{% macro _scan_get(mapping, key, where, prefix) %}
  {%- set camel = dataplex_dq.camel_case(key) -%}
  {%- if camel != key and mapping.get(key) is not none and mapping.get(camel) is not none -%}
    {{ dataplex_dq.raise_rule_error(where, prefix ~ key, "given twice, as '" ~ key ~ "' and as '" ~ camel ~ "'") }}
  {%- endif -%}
  {{ return(mapping.get(key) if mapping.get(key) is not none else mapping.get(camel)) }}
{% endmacro %}

{#- One declared rule (a DataQualityRule in snake_case or camelCase) -> the dict of normalize_rule,
    or none when it is not a rule at all (its problems reported in `where`). Two steps: its one rule
    type (scan_rule_declared_type), then its fields (scan_rule_args). `keys`: scan_rule_keys(), built
    once by a caller reading many rules. -#}
{% macro normalize_scan_rule(raw, index, where, keys=none) %}
  {%- set keys = keys or dataplex_dq.scan_rule_keys() -%}
  {%- set name = dataplex_dq.scan_rule_name(raw, index, keys) -%}
  {%- set where = {'source': where.source, 'rule': name, 'rule_index': index, 'test': where.test, 'problems': where.get('problems')} -%}
  {%- if raw is not mapping -%}
    {{ dataplex_dq.raise_rule_error(where, none, "must be a mapping (a DataQualityRule), got " ~ raw) }}
    {{ return(none) }}
  {%- endif -%}
  {%- set rule_type = dataplex_dq.scan_rule_declared_type(raw, where, keys) -%}
  {%- if rule_type is none -%}{{ return(none) }}{%- endif -%}
  {%- set args = dataplex_dq.scan_rule_args(raw, rule_type, dict(where, test='dataplex_dq.data_quality_scan ' ~ rule_type), keys) -%}
  {%- if args is none -%}{{ return(none) }}{%- endif -%}
  {%- set node = {'name': name, 'description': raw.get('description')} -%}
  {{ return(dataplex_dq.normalize_rule(rule_type, node, raw.get('column'), args)) }}
{% endmacro %}

{#- The one rule type of a declared rule (a registry key, given in snake_case or camelCase), or none;
    a key that is neither a rule type nor a common field is reported. -#}
{% macro scan_rule_declared_type(raw, where, keys=none) %}
  {%- set keys = keys or dataplex_dq.scan_rule_keys() -%}
  {%- set type_keys = keys.type_keys -%}
  {%- set known = keys.known -%}
  {%- set found = [] -%}
  {%- set unknown = [] -%}
  {%- for key in raw -%}
    {%- if key not in known -%}{%- do unknown.append(key) -%}
    {%- elif known[key] in type_keys and known[key] not in found -%}{%- do found.append(known[key]) -%}{%- endif -%}
  {%- endfor -%}
  {%- if (found | length) == 1 and not unknown -%}{{ return(found[0]) }}{%- endif -%}  {#- the common case -#}
  {{ return(dataplex_dq.scan_rule_type_problems(where, keys, found, unknown)) }}
{% endmacro %}

{#- The problems of a declared rule whose keys are not one rule type and common fields (`found`: its
    rule types, `unknown`: its other keys), reported in `where`: its one rule type, or none. Apart
    from scan_rule_declared_type, so that a scan of well-formed rules never compiles it. -#}
{% macro scan_rule_type_problems(where, keys, found, unknown) %}
  {%- set type_keys = keys.type_keys -%}
  {%- set common = keys.common -%}
  {#- a rule without a rule type whose unknown key is named like one (row_count_expectation,
      fooExpectation) gets one line saying so, not "unknown key" and "has no rule type" -#}
  {%- set choose = "give exactly one of: " ~ (type_keys | join(', ')) ~ " (or their camelCase, e.g. rangeExpectation)" -%}
  {%- set named_like_a_type = [] -%}
  {%- for key in unknown -%}
    {%- if not found and (key is string) and ((key | lower).endswith('expectation') or (key | lower).endswith('assertion')) -%}
      {%- do named_like_a_type.append(key) -%}
      {{ dataplex_dq.raise_rule_error(where, key, "is not a Dataplex rule type; " ~ choose) }}
    {%- else -%}
      {{ dataplex_dq.raise_rule_error(where, key, "unknown key; a rule takes one rule type (" ~ (type_keys | join(', ')) ~ ", in snake_case or camelCase) and: " ~ (common | join(', '))) }}
    {%- endif -%}
  {%- endfor -%}
  {%- if (found | length) == 0 -%}
    {%- if not named_like_a_type -%}
      {{ dataplex_dq.raise_rule_error(where, none, "has no rule type; " ~ choose) }}
    {%- endif -%}
    {{ return(none) }}
  {%- endif -%}
  {%- if (found | length) > 1 -%}
    {{ dataplex_dq.raise_rule_error(where, found[1], "a rule has exactly one rule type, got " ~ (found | join(', '))) }}
    {{ return(none) }}
  {%- endif -%}
  {{ return(found[0]) }}
{% endmacro %}

{#- The arguments of normalize_rule from a declared rule: its rule-type fields (those the registry
    lists for it) and its common fields, each in snake_case or camelCase; none when the rule-type
    field is not a mapping. -#}
{% macro scan_rule_args(raw, rule_type, where, keys=none) %}
  {%- set keys = keys or dataplex_dq.scan_rule_keys() -%}
  {%- set camel = keys.camel -%}
  {%- set own = dataplex_dq._scan_values(raw, [rule_type], camel, where, '').get(rule_type) -%}
  {%- if own is none -%}{%- set own = {} -%}{%- endif -%}
  {%- if own is not mapping -%}
    {{ dataplex_dq.raise_rule_error(where, rule_type, "must be a mapping of its fields (or {}), got " ~ own) }}
    {{ return(none) }}
  {%- endif -%}
  {%- set allowed = keys.facts[rule_type].params -%}
  {%- set allowed_keys = {} -%}
  {%- for k in allowed -%}{%- do allowed_keys.update({k: k, camel[k]: k}) -%}{%- endfor -%}
  {%- for key in own if key not in allowed_keys -%}
    {{ dataplex_dq.raise_rule_error(where, rule_type ~ '.' ~ key, "unknown field; " ~ rule_type ~ " takes: " ~ ((allowed | join(', ')) or 'no fields')) }}
  {%- endfor -%}
  {%- set args = dataplex_dq._scan_values(own, allowed, camel, where, rule_type ~ '.') if own else {} -%}
  {%- set common = ['dimension', 'threshold', 'ignore_null', 'suspended', 'debug_queries', 'attributes'] -%}
  {%- set given = dataplex_dq._scan_values(raw, common, camel, where, '') -%}
  {%- for k in common -%}{%- do args.update({k: given.get(k)}) -%}{%- endfor -%}
  {{ return(args) }}
{% endmacro %}

{#- The scan test: check the declaration (every problem reported in one error), then return the
    fused metrics query. Steps: the scan's arguments and settings (scan_declaration), its rules
    (scan_rules), their columns' types (scan_column_types), then the SQL. -#}
{% macro data_quality_scan_test(model, column_name, args, unknown_args) %}
  {%- set node = dataplex_dq.current_test_node() -%}
  {#- config() only counts when dbt parses the test (at execution it does nothing) -#}
  {%- if not execute -%}
    {%- set parsed = dataplex_dq.scan_parse(node, args, unknown_args) -%}
    {{ dataplex_dq.metrics_test_config(node, parsed.identity, parsed.declaration) }}
    {{ return("select 1 as passed") }}
  {%- endif -%}

  {%- set source_node = dataplex_dq.data_source_node(node) -%}
  {%- set test_name = dataplex_dq.short_test_name(node, 'data_quality_scan', source_node) -%}
  {%- set scan_where = dataplex_dq.collect_problems({'source': dataplex_dq.describe_source(source_node, model), 'rule': test_name,
                        'test': 'dataplex_dq.data_quality_scan', 'label': "data_quality_scan '" ~ test_name ~ "'"}) -%}
  {%- set recorded = dataplex_dq.recorded_declaration(node) -%}  {#- read at parse time when valid (scan_parse) -#}
  {%- set declared = dataplex_dq.scan_declaration(column_name, args, unknown_args, source_node, scan_where, recorded) -%}
  {%- set declared_rules = dataplex_dq.scan_rules(declared.args, source_node, node, scan_where, recorded) -%}
  {%- set rules = declared_rules.rules -%}
  {%- set column_types = dataplex_dq.scan_column_types(rules, declared_rules.wheres, source_node) -%}
  {%- set scan_where = dataplex_dq.raise_problems(scan_where) -%}  {#- every problem at once; raising from here on -#}

  {#- incremental scans (macros/incremental.sql): the scan's own field/lookback, else the data source's -#}
  {#- (without any incremental setting there is no window and nothing to check: no call) -#}
  {%- set window_settings = {} -%}
  {%- for key in ['incremental_field', 'incremental_lookback'] if key in declared.given or declared.meta_settings -%}
    {%- set v = declared.given.get(key) if key in declared.given else dataplex_dq.setting_value(declared.meta_settings, key) -%}
    {%- if v is not none -%}{%- do window_settings.update({key: v}) -%}{%- endif -%}
  {%- endfor -%}
  {%- set window = dataplex_dq.incremental_window(source_node, window_settings, scan_where, column_types.types) if window_settings else none -%}
  {%- set ctx = {
      'from_sql': model,
      'row_filter': dataplex_dq.scope_filter_with_window(declared.row_filter, window) if window is not none else declared.row_filter,
      'declared_row_filter': declared.row_filter,
      'incremental': window,
      'sampling_percent': declared.sampling_percent,
      'test_unique_id': node.unique_id,
      'source_unique_id': source_node.unique_id,
      'source_node': source_node,
      'column_types': column_types.types,
  } -%}
  {%- set sql = dataplex_dq.scan_with_anomaly_checks(dataplex_dq.scan_metrics_sql(rules, ctx, column_types.data_types), declared.args, declared.meta_settings, source_node, scan_where, dict(ctx, row_filter=declared.row_filter), rules | length) -%}
  {{ dataplex_dq.check_statement_size(sql, scan_where, rules | length) }}
  {#- (a test without meta.dataplex_dq has no cap to check: no call, as in rule_test) -#}
  {%- if ((node.get('config') or {}).get('meta') or {}).get('dataplex_dq') or (node.get('meta') or {}).get('dataplex_dq') -%}
    {{ dataplex_dq.bytes_billed_guard(node, source_node, sql, scan_where) }}
  {%- endif -%}
  {{ return(dataplex_dq.scan_session_prefix(rules, column_types.data_types, source_node) ~ sql) }}
{% endmacro %}

{#- The uniqueness keys' session settings put before the scan's SQL (DuckDB: perfect hashing for a
    narrow key, macros/scan_cross_db.sql), or '' when no evaluated rule is a uniqueness rule. -#}
{% macro scan_session_prefix(rules, data_types, source_node) %}
  {%- set group_keys = [] -%}
  {%- set group_types = [] -%}
  {%- for rule in rules -%}
    {%- if rule.rule_type == 'uniqueness_expectation' and not rule.suspended -%}
      {%- do group_keys.append(dataplex_dq.column_sql(rule)) -%}
      {%- do group_types.append(data_types[loop.index0]) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if group_keys | length == 0 -%}{{ return('') }}{%- endif -%}
  {{ return(adapter.dispatch('scan_prepare_session', 'dataplex_dq')(dataplex_dq.data_source_relation(source_node), group_keys, group_types)) }}
{% endmacro %}

{#- The scan's arguments as pasted: those given (not none) and any other key under `arguments:`. -#}
{% macro scan_pasted_args(args, unknown_args) %}
  {%- set pasted = {} -%}
  {%- for k, v in args.items() if v is not none -%}{%- do pasted.update({k: v}) -%}{%- endfor -%}
  {%- for k in unknown_args -%}{%- do pasted.update({k: unknown_args[k]}) -%}{%- endfor -%}
  {{ return(pasted) }}
{% endmacro %}

{#- A key of the spec that is not a DataQualitySpec field, reported in `where`. -#}
{% macro scan_unknown_arguments(spec, where) %}
  {%- set scan_keys = ['rules', 'row_filter', 'sampling_percent', 'post_scan_actions', 'catalog_publishing_enabled', 'anomaly_detection', 'incremental_field', 'incremental_lookback'] -%}
  {%- set accepted = [] -%}
  {%- for k in scan_keys -%}{%- do accepted.extend([k, dataplex_dq.camel_case(k)]) -%}{%- endfor -%}
  {%- for key in spec if key not in accepted -%}
    {{ dataplex_dq.raise_rule_error(where, key, "unknown argument; dataplex_dq.data_quality_scan takes a DataQualitySpec: " ~ (scan_keys | join(', ')) ~ " (snake_case or camelCase), bare, under data_quality_spec, or a whole DataScan resource") }}
  {%- endfor -%}
{% endmacro %}

{#- The declared rules (a non-empty list), each normalized and validated, its problems reported in
    `where`: at most 1,000, names unique within the scan. Returns {rules, wheres, indexes} (`wheres`:
    where each rule's problems are reported; `indexes`: each rule's position in `raw_rules`, a rule
    that is not one left out). -#}
{% macro scan_read_rules(raw_rules, where) %}
  {%- if (raw_rules | length) > 1000 -%}
    {{ dataplex_dq.raise_rule_error(where, 'rules', "has " ~ (raw_rules | length) ~ " rules; Dataplex allows at most 1000 per data source") }}
  {%- endif -%}
  {%- set out = {'rules': [], 'wheres': [], 'indexes': []} -%}
  {%- set seen = {} -%}
  {%- set keys = dataplex_dq.scan_rule_keys() -%}
  {%- for raw in raw_rules -%}
    {%- set rule = dataplex_dq.normalize_scan_rule(raw, loop.index0, where, keys) -%}
    {%- if rule is not none -%}
      {%- set rule_where = {'source': where.source, 'rule': rule.name, 'rule_index': loop.index0, 'test': 'dataplex_dq.data_quality_scan ' ~ rule.rule_type, 'problems': where.problems} -%}
      {{ dataplex_dq.validate_rule(rule, rule_where) }}
      {%- if rule.name in seen -%}
        {{ dataplex_dq.raise_rule_error(rule_where, 'name', "rule #" ~ seen[rule.name] ~ " of this scan has the same name; rule names must be unique per data source") }}
      {%- endif -%}
      {%- do seen.update({rule.name: loop.index0}) -%}
      {%- do out.rules.append(rule) -%}
      {%- do out.wheres.append(rule_where) -%}
      {%- do out.indexes.append(loop.index0) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{% endmacro %}

{#- Step 1: the scan's arguments (the spec as pasted: bare, wrapped, a DataScan resource; either
    casing at every depth; `recorded`: as read when dbt parsed the test, macros/identity.sql) and
    scan-level settings: the scan's own, else the data source's meta.dataplex_dq. Returns {args,
    given, meta_settings, row_filter, sampling_percent}. -#}
{% macro scan_declaration(column_name, args, unknown_args, source_node, scan_where, recorded=none) %}
  {%- if recorded is none -%}
    {#- a wrapper that is not a mapping leaves nothing to check: raised at once -#}
    {%- set args = dataplex_dq.scan_spec_of(dataplex_dq.scan_pasted_args(args, unknown_args), dict(scan_where, problems=none)) -%}
    {{ dataplex_dq.scan_unknown_arguments(args, scan_where) }}
  {%- else -%}
    {%- set args = recorded.spec -%}
  {%- endif -%}
  {%- if column_name -%}
    {{ dataplex_dq.raise_rule_error(scan_where, none, "declare data_quality_scan under the model's data_tests, not under column '" ~ column_name ~ "'; each rule names its own column") }}
  {%- endif -%}
  {%- set problem = dataplex_dq.data_source_problem(source_node) -%}
  {%- if problem is not none -%}
    {{ dataplex_dq.raise_rule_error(scan_where, none, problem) }}
    {{ return(dataplex_dq.raise_problems(scan_where)) }}
  {%- endif -%}
  {%- set given = {} -%}
  {%- for key in ['row_filter', 'sampling_percent', 'post_scan_actions', 'incremental_field', 'incremental_lookback', 'catalog_publishing_enabled'] -%}
    {%- set v = dataplex_dq._scan_get(args, key, scan_where, '') -%}
    {%- if v is not none -%}{%- do given.update({key: v}) -%}{%- endif -%}
  {%- endfor -%}
  {#- (no settings, nothing to check: the checks are not compiled) -#}
  {%- if given -%}
    {{ dataplex_dq.validate_scope_settings(given, scan_where, ['row_filter', 'sampling_percent', 'post_scan_actions'] + dataplex_dq.lifecycle_setting_keys()) }}
    {{ dataplex_dq.validate_post_scan_actions(given.get('post_scan_actions'), scan_where) }}
  {%- endif -%}
  {%- set meta_settings = dataplex_dq.data_source_settings(source_node) -%}
  {%- if meta_settings -%}
    {{ dataplex_dq.validate_scope_settings(meta_settings, scan_where, dataplex_dq.anomaly_scope_keys() + dataplex_dq.lifecycle_setting_keys()) }}
    {%- set meta_settings = meta_settings if meta_settings is mapping else {} -%}
    {{ dataplex_dq.validate_post_scan_actions(meta_settings.get('post_scan_actions'), scan_where) }}
  {%- endif -%}
  {{ return({'args': args, 'given': given, 'meta_settings': meta_settings,
             'row_filter': given.get('row_filter') if 'row_filter' in given else meta_settings.get('row_filter'),
             'sampling_percent': given.get('sampling_percent') if 'sampling_percent' in given else meta_settings.get('sampling_percent')}) }}
{% endmacro %}

{#- Step 2: the rules, normalized and validated (scan_read_rules; done when dbt parsed the test when
    `recorded`, macros/identity.sql), then their names unique across the data source, at most 1,000.
    Returns {rules, wheres} (`wheres`: where each rule's problems are reported). -#}
{% macro scan_rules(args, source_node, node, scan_where, recorded=none) %}
  {%- if recorded is none -%}
    {%- set raw_rules = args.get('rules') -%}
    {%- if raw_rules is none or raw_rules is string or raw_rules is mapping or raw_rules is not iterable or (raw_rules | length) == 0 -%}
      {{ dataplex_dq.raise_rule_error(scan_where, 'rules', "must be a non-empty list of rules (DataQualityRule), got " ~ raw_rules) }}
      {{ return(dataplex_dq.raise_problems(scan_where)) }}
    {%- endif -%}
    {%- set read = dataplex_dq.scan_read_rules(raw_rules, scan_where) -%}
  {%- else -%}
    {#- recorded valid at parse time: copies (the SQL builders add a rule's resolved column and SQL to it),
        each reporting its problems as the rule of its index -#}
    {%- set read = {'rules': [], 'wheres': []} -%}
    {%- for rule in recorded.rules -%}
      {%- do read.rules.append(dict(rule, params=dict(rule.params))) -%}
      {#- (each where as scan_read_rules builds it) -#}
      {%- do read.wheres.append({'source': scan_where.source, 'rule': rule.name, 'rule_index': loop.index0, 'test': 'dataplex_dq.data_quality_scan ' ~ rule.rule_type, 'problems': scan_where.problems}) -%}
    {%- endfor -%}
  {%- endif -%}
  {%- set rules = read.rules -%}
  {%- set wheres = read.wheres -%}
  {%- set others = dataplex_dq.other_rule_names(source_node, node) -%}
  {%- for rule in rules -%}
    {%- if rule.name in others -%}
      {{ dataplex_dq.raise_rule_error(wheres[loop.index0], 'name', "another rule on the same data source is also named '" ~ rule.name ~ "'; rule names must be unique per data source") }}
    {%- endif -%}
  {%- endfor -%}
  {%- if (others | length) + (rules | length) > 1000 -%}
    {{ dataplex_dq.raise_rule_error(scan_where, 'rules', "the data source has " ~ ((others | length) + (rules | length)) ~ " rules (" ~ (rules | length) ~ " in this scan); Dataplex allows at most 1000 per data source") }}
  {%- endif -%}
  {{ return({'rules': rules, 'wheres': wheres}) }}
{% endmacro %}

{#- Step 3: the column type of each rule (none without a column or when suspended), checked
    (checked_column_type), with one metadata query for the whole scan. Returns {data_types, types}. -#}
{% macro scan_column_types(rules, wheres, source_node) %}
  {%- set data_types = [] -%}
  {%- set state = {'types': none} -%}
  {%- for rule in rules -%}
    {%- if rule.column is string and rule.column and not rule.suspended -%}
      {%- if state.types is none -%}
        {%- do state.update({'types': dataplex_dq.cached_column_types(source_node)}) -%}
      {%- endif -%}
      {%- do data_types.append(dataplex_dq.checked_column_type(rule, source_node, wheres[loop.index0], state.types)) -%}
    {%- else -%}
      {%- do data_types.append(none) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return({'data_types': data_types, 'types': state.types}) }}
{% endmacro %}

{#- post_scan_actions as DataQualitySpec.PostScanActions (snake_case or camelCase). -#}
{% macro validate_post_scan_actions(actions, where) %}
  {%- if actions is none -%}{{ return('') }}{%- endif -%}
  {%- if actions is not mapping -%}
    {{ dataplex_dq.raise_rule_error(where, 'post_scan_actions', "must be a mapping (bigquery_export, notification_report), got " ~ actions) }}
    {{ return('') }}
  {%- endif -%}
  {%- for key in actions -%}
    {%- if key not in ['bigquery_export', 'bigqueryExport', 'notification_report', 'notificationReport'] -%}
      {{ dataplex_dq.raise_rule_error(where, 'post_scan_actions.' ~ key, "unknown field; allowed: bigquery_export, notification_report") }}
    {%- endif -%}
  {%- endfor -%}
  {%- set export = actions.get('bigquery_export', actions.get('bigqueryExport')) -%}
  {%- if export is not none and export is not mapping -%}
    {{ dataplex_dq.raise_rule_error(where, 'post_scan_actions.bigquery_export', "must be a mapping with results_table, got " ~ export) }}
  {%- endif -%}
  {%- for key in (export if export is mapping else {}) if key not in ['results_table', 'resultsTable'] -%}
    {{ dataplex_dq.raise_rule_error(where, 'post_scan_actions.bigquery_export.' ~ key, "unknown field; allowed: results_table") }}
  {%- endfor -%}
{% endmacro %}

{#- The fused query's state (`scan`), which each rule type's contribution fills
    (macros/rules/<rule_type>.sql, <rule_type>_scan):
      agg         the expressions of the one aggregate row over the scope (scan_aggregate)
      assertions  the scalar subqueries of the SQL assertions (scan_assertion)
      unique      quoted column -> name of its uniqueness count
      window_sql  window items (uniqueness columns counted with the 'window' strategy)
      grouped_sql grouped-count CTEs (the other uniqueness columns, and the shared groupings)
      groupings   quoted column -> its shared grouping (scan_key_grouping)
      shared      {keys: {quoted column: true}, assertions: {rule index: {key, nulls_counted}}}: the keys
                  whose one grouping serves several rules (scan_shared_groupings)
      strategy    scan_uniqueness_strategy() -#}
{% macro scan_state() %}
  {{ return({'agg': {'aliases': {}, 'exprs': []}, 'assertions': {'aliases': {}, 'exprs': []},
             'unique': {}, 'window_sql': [], 'grouped_sql': [], 'groupings': {}, 'shared': {'keys': {}, 'assertions': {}},
             'strategy': dataplex_dq.scan_uniqueness_strategy()}) }}
{% endmacro %}

{#- Register an expression once in `registry` (scan.agg or scan.assertions); returns its column name. -#}
{% macro _scan_add(registry, expr, prefix) %}
  {%- if expr in registry['aliases'] -%}{{ return(registry['aliases'][expr]) }}{%- endif -%}
  {%- set alias = prefix ~ (registry['exprs'] | length) -%}
  {%- do registry['aliases'].update({expr: alias}) -%}
  {%- do registry['exprs'].append(expr ~ " as " ~ alias) -%}
  {{ return(alias) }}
{% endmacro %}
{#- The null count of a column, one expression of the aggregate row (shared by every rule on it). -#}
{% macro scan_null_count(scan, column_sql) %}
  {{ return(dataplex_dq.scan_aggregate(scan, "coalesce(sum(case when " ~ column_sql ~ " is null then 1 else 0 end), 0)")) }}
{% endmacro %}

{#- The one grouping by `column_sql` over the scope that several rules share (scan.shared.keys): a CTE
    dq_g<n> with the number of non-NULL values occurring once (dq_once: a uniqueness rule's passing rows)
    and the number occurring more than once (dq_dups: the rows of a duplicate-key SQL assertion).
    Returns {once, dups}, qualified column references. -#}
{% macro scan_key_grouping(scan, column_sql) %}
  {%- if column_sql not in scan.groupings -%}
    {%- set g = 'dq_g' ~ (scan.groupings | length) -%}
    {%- set cte -%}
{{ g }} as (
  select coalesce(sum(case when dq_n = 1 then 1 else 0 end), 0) as dq_once, coalesce(sum(case when dq_n > 1 then 1 else 0 end), 0) as dq_dups from (
    select count(*) as dq_n from dq_scope where {{ column_sql }} is not null group by {{ column_sql }}
  ) dq_groups
)
    {%- endset -%}
    {%- do scan.grouped_sql.append(cte) -%}
    {%- do scan.groupings.update({column_sql: {'once': g ~ '.dq_once', 'dups': g ~ '.dq_dups'}}) -%}
  {%- endif -%}
  {{ return(scan.groupings[column_sql]) }}
{% endmacro %}

{% macro scan_aggregate(scan, expr) %}{{ return(dataplex_dq._scan_add(scan.agg, expr, 'dq_m')) }}{% endmacro %}
{% macro scan_assertion(scan, expr) %}{{ return(dataplex_dq._scan_add(scan.assertions, expr, 'dq_a')) }}{% endmacro %}

{#- The fused query: one metrics row per rule of `rules` (normalized), rule_index = position.
    `ctx`: from_sql, row_filter, sampling_percent, test_unique_id, source_unique_id;
    `data_types`: the column type of each rule (or none). Three steps: each rule's metrics columns
    over the aggregate row (scan_rule_columns), the CTEs and FROM items holding that row
    (scan_from), and one projection over the rule index (scan_select). -#}
{% macro scan_metrics_sql(rules, ctx, data_types) %}
  {%- set scope_sql = dataplex_dq.scope_select(ctx.from_sql, ctx.row_filter, ctx.sampling_percent) -%}
  {%- set scan = dataplex_dq.scan_state() -%}
  {#- groupings by one key shared by several rules (macros/scan_cross_db.sql, scan_shared_groupings) -#}
  {%- do scan.update({'shared': adapter.dispatch('scan_shared_groupings', 'dataplex_dq')(rules, ctx, scan.strategy)}) -%}
  {%- set per_rule_columns = dataplex_dq.scan_rule_columns(rules, ctx, data_types, scan, dataplex_dq.data_sql_in_scope(ctx, scope_sql)) -%}
  {%- set from = dataplex_dq.scan_from(rules, ctx, scan, scope_sql) -%}
  {{ return(dataplex_dq.scan_select(per_rule_columns, from.ctes, from.from_items)) }}
{% endmacro %}

{#- Step 1: the metrics columns of each rule (metrics_columns), its aggregates registered in `scan`. -#}
{% macro scan_rule_columns(rules, ctx, data_types, scan, data_sql) %}
  {%- set row_count = dataplex_dq.scan_aggregate(scan, 'count(*)') -%}
  {%- set per_rule_columns = [] -%}
  {%- set shared = dict(ctx, dq_types=dataplex_dq.metrics_column_types()) -%}  {#- read once for every rule -#}
  {%- set pieces_of = {} -%}  {#- each rule type's SQL pieces, resolved once per scan -#}
  {%- for rule in rules -%}
    {%- set rctx = dict(shared, data_type=data_types[loop.index0], rule_index=loop.index0) -%}
    {%- if rule.suspended -%}
      {%- set m = dataplex_dq.suspended_metrics(rule) -%}
    {%- else -%}
      {%- set col = dataplex_dq.column_sql(rule) -%}
      {%- set refs = {'row_count': row_count, 'null_count': 'null'} -%}
      {%- if col -%}
        {%- do refs.update({'null_count': dataplex_dq.scan_null_count(scan, col)}) -%}
      {%- endif -%}
      {#- the rule type's contribution (macros/rules/<rule_type>.sql, <rule_type>_scan) -#}
      {%- if rule.rule_type not in pieces_of -%}{%- do pieces_of.update({rule.rule_type: dataplex_dq.rule_sql_pieces(rule.rule_type)}) -%}{%- endif -%}
      {%- do rctx.update({'dq_sql': pieces_of[rule.rule_type]}) -%}
      {%- set scan_of = rctx.dq_sql.scan if 'scan' in rctx.dq_sql else dataplex_dq.rule_sql(rule.rule_type, 'scan') -%}
      {%- do refs.update(scan_of(rule, rctx, col, data_sql, scan)) -%}
      {%- set m = dataplex_dq.rule_metrics_exprs(rule, rctx, refs) -%}
    {%- endif -%}
    {%- do per_rule_columns.append(dataplex_dq.metrics_columns(rule, rctx, m)) -%}
  {%- endfor -%}
  {{ return(per_rule_columns) }}
{% endmacro %}

{#- Step 2: the CTEs and the FROM items: the one aggregate row (when any rule is evaluated), the
    grouped uniqueness counts and the assertions' row, times the rule indexes. -#}
{% macro scan_from(rules, ctx, scan, scope_sql) %}
  {%- set items = [] -%}
  {%- set ctes = [] -%}
  {%- if rules | rejectattr('suspended') | list | length > 0 -%}
    {%- do ctes.append("dq_scope as " ~ dataplex_dq.scan_scope_keyword(ctx, scan) ~ "(\n  " ~ scope_sql ~ "\n)") -%}
    {%- set agg_from = 'dq_scope' -%}
    {%- if (scan.window_sql | length) > 0 -%}
      {%- do ctes.append("dq_scope_w as (\n  select dq_scope.*, " ~ (scan.window_sql | join(", ")) ~ " from dq_scope\n)") -%}
      {%- set agg_from = 'dq_scope_w' -%}
    {%- endif -%}
    {%- do ctes.append("dq_agg as (\n  select\n    " ~ (scan.agg['exprs'] | join(",\n    ")) ~ "\n  from " ~ agg_from ~ "\n)") -%}
    {%- do items.append('dq_agg') -%}
    {%- for u in scan.grouped_sql -%}
      {%- do ctes.append(u) -%}
      {%- do items.append(u.split(' ')[0]) -%}
    {%- endfor -%}
    {%- if scan.assertions['exprs'] | length > 0 -%}
      {%- do ctes.append("dq_assertions as (\n  select\n    " ~ (scan.assertions['exprs'] | join(",\n    ")) ~ "\n)") -%}
      {%- do items.append('dq_assertions') -%}
    {%- endif -%}
  {%- endif -%}
  {%- do items.append(adapter.dispatch('scan_rule_index_list', 'dataplex_dq')(rules | length)) -%}
  {{ return({'ctes': ctes, 'from_items': items}) }}
{% endmacro %}

{#- `materialized ` / `not materialized ` (or '') for the scope CTE when grouped uniqueness counts read
    it again: materialized with sampling (every rule sees the same sample) or 'grouped_one_scan'. -#}
{% macro scan_scope_keyword(ctx, scan) %}
  {%- set keyword = '' -%}
  {%- if (scan.grouped_sql | length) > 0 -%}
    {%- set sampled = ctx.sampling_percent and ctx.sampling_percent < 100 -%}
    {%- set keyword = adapter.dispatch('scan_cte_materialized', 'dataplex_dq')() if (sampled or scan.strategy == 'grouped_one_scan') else adapter.dispatch('scan_cte_inlined', 'dataplex_dq')() -%}
  {%- endif -%}
  {{ return(keyword ~ " " if keyword else "") }}
{% endmacro %}

{#- Step 3: one CASE over the rule index per metrics column (or the one expression all rules share);
    the rule status follows from passed and rule_suspended in an outer select, as in
    rule_metrics_exprs. -#}
{% macro scan_select(per_rule_columns, ctes, from_items) %}
  {%- set inner = [] -%}
  {%- set outer = [] -%}
  {%- for expr0, type, name in per_rule_columns[0] -%}
    {%- set j = loop.index0 -%}
    {%- if name == 'rule_status' -%}
      {%- do outer.append("  cast(case when rule_suspended then 'SUSPENDED' when passed then 'PASSED' else 'FAILED' end as " ~ type ~ ") as rule_status") -%}
    {%- else -%}
      {%- set exprs = [] -%}
      {%- for cols in per_rule_columns -%}{%- do exprs.append(cols[j][0]) -%}{%- endfor -%}
      {%- set expr = "dq_rules.rule_index" if name == 'rule_index' else dataplex_dq.scan_case(exprs) -%}
      {%- do inner.append("  " ~ (("cast(" ~ expr ~ " as " ~ type ~ ")") if type else expr) ~ " as " ~ name) -%}
      {%- do outer.append("  " ~ name) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set sql -%}
select
{{ outer | join(",\n") }}
from (
select
{{ inner | join(",\n") }}
from {{ from_items | join("\ncross join ") }}
) dq_rows
  {%- endset -%}
  {#- on DuckDB, plus the packed row (macros/metrics.sql, metrics_packed) -#}
  {{ return(adapter.dispatch('metrics_packed', 'dataplex_dq')(("with " ~ (ctes | join(",\n")) ~ "\n" if ctes else "") ~ sql)) }}
{% endmacro %}

{#- `case dq_rules.rule_index when 0 then <e0> ... end`, or the expression when every rule has the same. -#}
{% macro scan_case(exprs) %}
  {%- if (exprs | unique | list | length) == 1 -%}{{ return(exprs[0]) }}{%- endif -%}
  {%- set branches = [] -%}
  {%- for e in exprs -%}{%- do branches.append(" when " ~ loop.index0 ~ " then " ~ e) -%}{%- endfor -%}
  {{ return("case dq_rules.rule_index" ~ (branches | join('\n   ')) ~ " end") }}
{% endmacro %}
