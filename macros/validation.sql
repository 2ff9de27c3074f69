{#- Declaration checks (docs/SEMANTICS.md §3). Every error names the data source, the rule, the test and the field,
    and is raised while dbt compiles the test, never as a warehouse error later. -#}

{#- Which rule types are row-level, take ignore_null or need a column: the registry,
    macros/rules/_registry.sql. -#}

{#- Report a problem with one field of one rule. `where` = {'source': ..., 'rule': ..., 'test': ...},
    plus 'rule_index' for a rule of a data_quality_scan ("rule #3 'amount-in-range'"), or 'label' for
    an error about a whole scan ("data_quality_scan 'orders_scan'"). With 'problems' (a list, shared by
    every `where` of one declaration, see collect_problems) the one-line message is collected and
    raised with the others by raise_problems (issue 9, C.3: every problem of a declaration in one
    run); without it, it is raised at once. -#}
{% macro raise_rule_error(where, field, message) %}
  {%- set msg = dataplex_dq.rule_error_text(where, field, message) -%}
  {%- if where.get('problems') is none -%}{{ exceptions.raise_compiler_error(msg) }}{%- endif -%}
  {%- if msg not in where.problems -%}{%- do where.problems.append(msg) -%}{%- endif -%}
{% endmacro %}

{% macro rule_error_text(where, field, message) %}
  {%- set rule_label = ("rule #" ~ where.rule_index ~ " '" ~ where.rule ~ "'") if where.get('rule_index') is not none else ("rule '" ~ where.rule ~ "'") -%}
  {%- if where.get('label') -%}{%- set rule_label = where.label -%}{%- endif -%}
  {%- set msg = "dataplex_dq: " ~ where.source ~ ", " ~ rule_label ~ " (" ~ where.test ~ ")" -%}
  {%- if field -%}{%- set msg = msg ~ ", field '" ~ field ~ "'" -%}{%- endif -%}
  {{ return(msg ~ ": " ~ (message | string).replace('\n', ' ')) }}
{% endmacro %}

{#- The message for a declared column the relation lacks (`types`: {column: data type} as the warehouse
    reports them). A relation with no columns at all was not found (not built yet, or a source whose
    database, schema or identifier is wrong): say that, not "its columns are: " and nothing. `how`: how
    the names were matched, or ''. -#}
{% macro missing_column_message(column, relation_name, types, how='') %}
  {%- if not types -%}
    {{ return("column '" ~ column ~ "' cannot be checked: the warehouse reports no columns for " ~ relation_name ~ " (it does not exist: not built yet, or its database, schema or identifier is wrong; or it cannot be read)") }}
  {%- endif -%}
  {{ return("column '" ~ column ~ "' does not exist in " ~ relation_name ~ how ~ "; its columns are: " ~ (types.keys() | list | join(', '))) }}
{% endmacro %}

{#- `where` collecting its problems (raise_rule_error) instead of raising the first. -#}
{% macro collect_problems(where) %}{{ return(dict(where, problems=[])) }}{% endmacro %}

{#- Raise the problems collected in `where` (none: nothing happens): one, as its own one-line message;
    several, as one compiler error listing them all, one line each. Returns `where` raising at once
    from now on (for the checks that need a valid declaration to run at all). -#}
{% macro raise_problems(where) %}
  {%- set problems = where.get('problems') or [] -%}
  {%- if (problems | length) == 1 -%}{{ exceptions.raise_compiler_error(problems[0]) }}{%- endif -%}
  {%- if (problems | length) > 1 -%}
    {%- set label = where.get('label') or ("rule '" ~ where.rule ~ "'") -%}
    {{ exceptions.raise_compiler_error("dataplex_dq: " ~ (problems | length) ~ " problems in the declaration of " ~ where.source ~ ", " ~ label ~ ":\n" ~ (problems | join("\n"))) }}
  {%- endif -%}
  {{ return(dict(where, problems=none)) }}
{% endmacro %}

{% macro _is_scalar(value) %}
  {{ return(value is not none and value is not mapping and (value is string or value is number or value is not iterable)) }}
{% endmacro %}

{#- Turn a YAML scalar (string, number, date) into the proto's string form. -#}
{% macro scalar_text(value) %}
  {%- if value is none -%}{{ return(none) }}{%- endif -%}
  {%- if value is boolean -%}{{ return('true' if value else 'false') }}{%- endif -%}
  {{ return(value | string) }}
{% endmacro %}

{% macro _check_bool(rule, where, field) %}
  {%- set value = rule.get(field) -%}
  {%- if value is not none and value is not boolean -%}
    {{ dataplex_dq.raise_rule_error(where, field, "must be true or false, got " ~ value ~ "") }}
  {%- endif -%}
{% endmacro %}

{#- regex_problem(pattern): macros/regex_check.sql (RE2's syntax, checked against a real RE2). -#}

{#- Static checks of one normalized rule (see rule_test.sql for its shape), in named steps; each
    problem is reported (raise_rule_error), and a check that needs a valid value skips an invalid one. -#}
{% macro validate_rule(rule, where) %}
  {#- (an optional field that is not there has nothing to check: its step is not called) -#}
  {%- if '\\x00' in (rule | string) -%}{{ dataplex_dq.validate_no_nul(rule, where) }}{%- endif -%}
  {{ dataplex_dq.validate_rule_identity(rule, where) }}
  {%- set facts = dataplex_dq.rule_type_facts(rule.rule_type) -%}  {#- read once for the rule's checks -#}
  {%- if rule.threshold is not none -%}{{ dataplex_dq.validate_rule_threshold(rule, where, facts) }}{%- endif -%}
  {{ dataplex_dq.validate_rule_flags_and_column(rule, where, facts) }}
  {{ dataplex_dq.validate_rule_params(rule, where) }}
  {%- if rule.debug_queries is not none -%}{{ dataplex_dq.validate_debug_queries(rule.debug_queries, where) }}{%- endif -%}
  {%- if rule.attributes is not none -%}{{ dataplex_dq.validate_attributes(rule.attributes, where) }}{%- endif -%}
{% endmacro %}

{#- No text of the rule holds a NUL character (U+0000): PostgreSQL's text and JSON cannot store one,
    and the results table keeps every text of a rule; refused on every warehouse alike. The field is
    named, its text is not quoted. (The caller checks `rule | string`, whose repr shows a NUL as \x00,
    before walking the rule; `path` is the field's name so far.) -#}
{% macro validate_no_nul(value, where, path='') %}
  {%- if value is string -%}
    {%- if '\x00' in value -%}
      {{ dataplex_dq.raise_rule_error(where, path or none, "contains a NUL character (U+0000), which the results table cannot store (PostgreSQL text cannot hold it); remove it") }}
    {%- endif -%}
  {%- elif value is mapping -%}
    {%- for key, item in value.items() -%}
      {%- set field = key | string -%}
      {%- if field == 'params' and not path -%}{%- set field = '' -%}{%- endif -%}  {#- a rule's own fields are named without `params.` -#}
      {%- if key is string and '\x00' in key -%}{{ dataplex_dq.validate_no_nul(key, where, (path ~ '.' if path else '') ~ 'key') }}{%- endif -%}
      {{ dataplex_dq.validate_no_nul(item, where, (path ~ '.' if path and field else path) ~ field) }}
    {%- endfor -%}
  {%- elif value is iterable -%}
    {%- for item in value -%}{{ dataplex_dq.validate_no_nul(item, where, path ~ '[' ~ loop.index0 ~ ']') }}{%- endfor -%}
  {%- endif -%}
{% endmacro %}

{#- name, description, dimension -#}
{% macro validate_rule_identity(rule, where) %}
  {%- if not modules.re.match('^[A-Za-z]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$', rule.name or '') -%}
    {{ dataplex_dq.raise_rule_error(where, 'name', "'" ~ rule.name ~ "' is not a valid Dataplex rule name: use letters, digits and hyphens, start with a letter, end with a letter or digit, at most 63 characters") }}
  {%- endif -%}
  {%- if rule.description is not none and (rule.description | string | length) > 1024 -%}
    {{ dataplex_dq.raise_rule_error(where, 'description', "is " ~ (rule.description | string | length) ~ " characters long; at most 1024 are allowed") }}
  {%- endif -%}
  {%- if rule.dimension is not none and not modules.re.match('^[A-Z]{1,30}$', rule.dimension | string) -%}
    {{ dataplex_dq.raise_rule_error(where, 'dimension', "'" ~ rule.dimension ~ "' must be 1 to 30 upper-case letters (e.g. VALIDITY, COMPLETENESS or a custom name like TIMELINESS)") }}
  {%- endif -%}
{% endmacro %}

{#- threshold: row-level rules only, a number in [0, 1] -#}
{% macro validate_rule_threshold(rule, where, facts=none) %}
  {%- if rule.threshold is none -%}{{ return('') }}{%- endif -%}
  {%- if not (facts or dataplex_dq.rule_type_facts(rule.rule_type)).row_level -%}
    {{ dataplex_dq.raise_rule_error(where, 'threshold', "is only allowed on row-level rules; " ~ rule.rule_type ~ " is an aggregate rule that passes or fails as a whole") }}
  {%- endif -%}
  {#- `threshold != threshold` is NaN (.nan in YAML), which every comparison lets through -#}
  {%- if rule.threshold is boolean or rule.threshold is not number or rule.threshold != rule.threshold or rule.threshold < 0 or rule.threshold > 1 -%}
    {{ dataplex_dq.raise_rule_error(where, 'threshold', "must be a number between 0 and 1 (0 means 1.0), got " ~ rule.threshold) }}
  {%- endif -%}
{% endmacro %}

{#- ignore_null and suspended; the column (required by the rule types that need one, per the registry) -#}
{% macro validate_rule_flags_and_column(rule, where, facts=none) %}
  {%- for field in ['ignore_null', 'suspended'] if rule.get(field) is not none and rule.get(field) is not boolean -%}{{ dataplex_dq._check_bool(rule, where, field) }}{%- endfor -%}
  {%- set facts = facts or dataplex_dq.rule_type_facts(rule.rule_type) -%}
  {%- if rule.ignore_null and not facts.ignore_null -%}
    {{ dataplex_dq.raise_rule_error(where, 'ignore_null', "is only valid for range, regex, set and uniqueness rules, not " ~ rule.rule_type) }}
  {%- endif -%}
  {%- if facts.needs_column and not rule.column -%}
    {#- a rule of a data_quality_scan (it has a rule_index) names its column itself -#}
    {%- set how = "give the rule a column: (" ~ rule.rule_type ~ " checks one column)" if where.get('rule_index') is not none else "declare this test under a column (columns: - name: ... data_tests:)" -%}
    {{ dataplex_dq.raise_rule_error(where, 'column', "is required: " ~ how) }}
  {%- endif -%}
  {%- if rule.column is not none and rule.column is not string -%}
    {{ dataplex_dq.raise_rule_error(where, 'column', "must be a column name, got " ~ rule.column) }}
  {%- endif -%}
{% endmacro %}

{#- the rule-type fields: each rule type checks its own (`<rule_type>_validate(params, where)` in
    macros/rules/<rule_type>.sql), a type without fields has none. Each is called by name, not looked up
    (`dataplex_dq.get(...)`): dbt parses a test with only the macros it finds called in its macros' code,
    and this runs when dbt parses the test too (macros/identity.sql). python/tests/test_rule_types.py
    checks that every `_validate` macro of macros/rules/ is called here. -#}
{% macro validate_rule_params(rule, where) %}
  {%- set t = rule.rule_type -%}
  {%- if t == 'range_expectation' -%}{{ dataplex_dq.range_expectation_validate(rule.params, where) }}
  {%- elif t == 'set_expectation' -%}{{ dataplex_dq.set_expectation_validate(rule.params, where) }}
  {%- elif t == 'regex_expectation' -%}{{ dataplex_dq.regex_expectation_validate(rule.params, where) }}
  {%- elif t == 'statistic_range_expectation' -%}{{ dataplex_dq.statistic_range_expectation_validate(rule.params, where) }}
  {%- elif t == 'row_condition_expectation' -%}{{ dataplex_dq.row_condition_expectation_validate(rule.params, where) }}
  {%- elif t == 'table_condition_expectation' -%}{{ dataplex_dq.table_condition_expectation_validate(rule.params, where) }}
  {%- elif t == 'sql_assertion' -%}{{ dataplex_dq.sql_assertion_validate(rule.params, where) }}
  {%- elif t == 'template_reference' -%}{{ dataplex_dq.template_reference_validate(rule.params, where) }}
  {%- endif -%}
{% endmacro %}

{% macro _is_sql_text(value) %}{{ return(value is string and (value | trim | length) > 0) }}{% endmacro %}

{#- min_value / max_value (at least one, single values) and the strict flags of a range or statistic rule -#}
{% macro validate_bounds(params, where) %}
  {%- if params.get('min_value') is none and params.get('max_value') is none -%}
    {{ dataplex_dq.raise_rule_error(where, 'min_value', "at least one of min_value and max_value must be given") }}
  {%- endif -%}
  {%- for field in ['min_value', 'max_value'] -%}
    {%- if params.get(field) is not none and not dataplex_dq._is_scalar(params.get(field)) -%}
      {{ dataplex_dq.raise_rule_error(where, field, "must be a single value, got " ~ params.get(field)) }}
    {%- endif -%}
  {%- endfor -%}
  {%- for field in ['strict_min_enabled', 'strict_max_enabled'] if params.get(field) is not none and params.get(field) is not boolean -%}{{ dataplex_dq._check_bool(params, where, field) }}{%- endfor -%}
{% endmacro %}

{#- values of a set rule: a non-empty list of single values -#}
{% macro validate_set_values(values, where) %}
  {%- if values is none or values is string or values is mapping or values is not iterable or (values | length) == 0 -%}
    {{ dataplex_dq.raise_rule_error(where, 'values', "must be a non-empty list of values, got " ~ values) }}
    {{ return('') }}
  {%- endif -%}
  {%- for v in values -%}
    {%- if not (v is not none and v is not mapping and (v is string or v is number or v is not iterable)) -%}  {#- _is_scalar(v), in place: once per value -#}
      {{ dataplex_dq.raise_rule_error(where, 'values', "item " ~ loop.index0 ~ " must be a single value, got " ~ v) }}
    {%- endif -%}
  {%- endfor -%}
{% endmacro %}

{#- regex: a string of valid RE2 (macros/regex_check.sql) the target's engine can run -#}
{% macro validate_regex(regex, where) %}
  {%- if regex is not string -%}
    {{ dataplex_dq.raise_rule_error(where, 'regex', "must be a string, got " ~ regex) }}
    {{ return('') }}
  {%- endif -%}
  {#- a pattern of RE2's plain subset is valid: the full check (~9 KB of Jinja) is not compiled for it -#}
  {%- set problem = none if dataplex_dq.re2_plain(regex) else dataplex_dq.regex_problem(regex) -%}
  {%- if problem -%}{{ dataplex_dq.raise_rule_error(where, 'regex', "'" ~ regex ~ "' " ~ problem) }}{%- endif -%}
  {#- what the target's own regex engine cannot compile (PostgreSQL: POSIX ARE, not RE2) -#}
  {%- set problem = adapter.dispatch('regex_target_problem', 'dataplex_dq')(regex) -%}
  {%- if problem -%}{{ dataplex_dq.raise_rule_error(where, 'regex', "'" ~ regex ~ "' " ~ problem) }}{%- endif -%}
{% endmacro %}

{#- debug_queries: a list of {description, sql_statement} -#}
{% macro validate_debug_queries(debug_queries, where) %}
  {%- if debug_queries is none -%}{{ return('') }}{%- endif -%}
  {%- if debug_queries is string or debug_queries is mapping or debug_queries is not iterable -%}
    {{ dataplex_dq.raise_rule_error(where, 'debug_queries', "must be a list of {description, sql_statement}") }}
    {{ return('') }}
  {%- endif -%}
  {%- for dq in debug_queries -%}
    {%- set field = 'debug_queries[' ~ loop.index0 ~ ']' -%}
    {%- if dq is not mapping -%}
      {{ dataplex_dq.raise_rule_error(where, field, "must be a mapping with sql_statement and optional description, got " ~ dq) }}
    {%- else -%}
      {%- for key in dq if key not in ['description', 'sql_statement', 'sqlStatement'] -%}
        {{ dataplex_dq.raise_rule_error(where, field, "unknown key '" ~ key ~ "'; allowed: description, sql_statement") }}
      {%- endfor -%}
      {%- set stmt = dq.get('sql_statement', dq.get('sqlStatement')) -%}
      {%- if not dataplex_dq._is_sql_text(stmt) -%}{{ dataplex_dq.raise_rule_error(where, field ~ '.sql_statement', "is required") }}
      {%- elif ';' in stmt -%}{{ dataplex_dq.raise_rule_error(where, field ~ '.sql_statement', "must not contain a semicolon") }}{%- endif -%}
      {%- if dq.get('description') is not none and (dq.get('description') | string | length) > 1024 -%}
        {{ dataplex_dq.raise_rule_error(where, field ~ '.description', "is longer than 1024 characters") }}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
{% endmacro %}

{#- attributes: a mapping of string keys to single values -#}
{% macro validate_attributes(attributes, where) %}
  {%- if attributes is not none and attributes is not mapping -%}
    {{ dataplex_dq.raise_rule_error(where, 'attributes', "must be a mapping of string keys to string values") }}
    {{ return('') }}
  {%- endif -%}
  {%- for key, value in (attributes or {}).items() -%}
    {%- if key is not string or not dataplex_dq._is_scalar(value) -%}
      {{ dataplex_dq.raise_rule_error(where, 'attributes.' ~ key, "must be a string (attributes are a mapping of string keys to string values), got " ~ value) }}
    {%- endif -%}
  {%- endfor -%}
{% endmacro %}

{#- Scan-level settings of a data source (meta.dataplex_dq, or a scan test's arguments). -#}
{#- Settings of the scan lifecycle (incremental scans, catalog publishing; macros/incremental.sql,
    python/dataplex_dq/outputs/catalog.py; failing-row samples' keys and mask: outputs/sample_keys.py), accepted in
    meta.dataplex_dq and the scan's arguments, either casing. -#}
{% macro lifecycle_setting_keys() %}
  {{ return(['incremental_field', 'incrementalField', 'incremental_lookback', 'incrementalLookback', 'catalog_publishing_enabled', 'catalogPublishingEnabled', 'sample_keys', 'sampleKeys', 'sample_mask', 'sampleMask']) }}
{% endmacro %}

{% macro validate_scope_settings(settings, where, allowed_keys) %}
  {%- if settings is not mapping -%}
    {{ dataplex_dq.raise_rule_error(where, 'meta.dataplex_dq', "must be a mapping") }}
    {{ return('') }}
  {%- endif -%}
  {%- for key in settings -%}
    {%- if key not in allowed_keys -%}
      {{ dataplex_dq.raise_rule_error(where, 'meta.dataplex_dq.' ~ key, "unknown setting; allowed: " ~ (allowed_keys | join(', '))) }}
    {%- endif -%}
  {%- endfor -%}
  {%- set pct = settings.get('sampling_percent', settings.get('samplingPercent')) -%}
  {%- if pct is not none and (pct is boolean or pct is not number or pct != pct or pct < 0 or pct > 100) -%}
    {{ dataplex_dq.raise_rule_error(where, 'sampling_percent', "must be a number between 0 and 100, got " ~ pct) }}
  {%- endif -%}
  {%- set rf = settings.get('row_filter', settings.get('rowFilter')) -%}
  {%- if rf is not none and rf is not string -%}
    {{ dataplex_dq.raise_rule_error(where, 'row_filter', "must be a SQL boolean expression (a string), got " ~ rf) }}
  {%- elif rf is string and '\x00' in rf -%}
    {{ dataplex_dq.validate_no_nul(rf, where, 'row_filter') }}
  {%- endif -%}
{% endmacro %}

{#- Whether text of the shape YYYY-MM-DD[ HH:MM[:SS]]... names a real date and time: the shape checks
    above let 2024-13-45 or 25:61 through, which the warehouse would refuse at run time. -#}
{% macro is_real_date_time(v) %}
  {%- set m = modules.re.match('^([0-9]{4})-([0-9]{2})-([0-9]{2})(?:[ T]([0-9]{2}):([0-9]{2})(?::([0-9]{2}))?)?', v) -%}
  {%- if not m -%}{{ return(true) }}{%- endif -%}
  {%- set y, mo, d = m.group(1) | int, m.group(2) | int, m.group(3) | int -%}
  {%- set leap = (y % 4 == 0 and y % 100 != 0) or y % 400 == 0 -%}
  {%- set days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] -%}
  {%- if mo < 1 or mo > 12 or d < 1 or d > days[mo - 1] -%}{{ return(false) }}{%- endif -%}
  {%- if m.group(4) and ((m.group(4) | int) > 23 or (m.group(5) | int) > 59 or (m.group(6) or '0') | int > 59) -%}{{ return(false) }}{%- endif -%}
  {{ return(true) }}
{% endmacro %}

{#- A bound that cannot be converted to the column's type without changing its value (docs/SEMANTICS.md §5).
    Returns a message, or none when fine. The common bounds (an integer, a plain decimal, a date whose
    day every year has, a timestamp of such a date, a time, true / false) are fine by one match; any
    other goes through bound_problem_message, compiled only then. -#}
{% macro bound_problem(value, data_type) %}
  {%- if data_type is none -%}{{ return(none) }}{%- endif -%}
  {%- set family = dataplex_dq.type_family(data_type) -%}
  {%- set number = '[+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)' -%}
  {%- set date = '[0-9]{4}-(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)' -%}
  {%- set time = '(?:[01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9](?:\\.[0-9]{1,6})?)?' -%}
  {%- set fine = {'integer': '[+-]?[0-9]+', 'decimal': number, 'float': number, 'date': date,
                  'timestamp': date ~ '(?:[ T]' ~ time ~ ')?(?: ?(?:Z|UTC|[+-][0-9]{2}(?::?[0-9]{2})?))?',
                  'time': '[0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\\.[0-9]{1,6})?)?', 'boolean': 'true|false|TRUE|FALSE|True|False'}.get(family) -%}
  {%- if fine is none or modules.re.fullmatch(fine, value | string | trim) -%}{{ return(none) }}{%- endif -%}
  {{ return(dataplex_dq.bound_problem_message(value, data_type, family)) }}
{% endmacro %}

{#- bound_problem's message for a bound that is not of the common shapes (or none: it is fine). -#}
{% macro bound_problem_message(value, data_type, family) %}
  {%- set v = value | string | trim -%}
  {%- if family == 'integer' -%}
    {%- set d = dataplex_dq.decimal_parts(v) -%}
    {%- if d is none -%}{{ return("'" ~ value ~ "' is not an integer, the type of the column (" ~ data_type ~ ")") }}{%- endif -%}
    {%- if d.frac -%}
      {{ return("'" ~ value ~ "' has a fractional part, but the column is an integer (" ~ data_type ~ "); Dataplex's conversion to the column's type would fail. Use an integer bound (e.g. '" ~ d.sign ~ (d.int or '0') ~ "' or the next integer)") }}
    {%- endif -%}
  {%- elif family in ['decimal', 'float'] -%}
    {%- if dataplex_dq.decimal_parts(v) is none -%}{{ return("'" ~ value ~ "' is not a number, the type of the column (" ~ data_type ~ ")") }}{%- endif -%}
  {%- elif family == 'date' -%}
    {%- if not modules.re.match('^[0-9]{4}-[0-9]{2}-[0-9]{2}$', v) -%}{{ return("'" ~ value ~ "' is not a date (YYYY-MM-DD only), the type of the column") }}{%- endif -%}
    {%- if not dataplex_dq.is_real_date_time(v) -%}{{ return("'" ~ value ~ "' is not a valid date (month 1-12, a day that month has)") }}{%- endif -%}
  {%- elif family == 'timestamp' -%}
    {%- set ts = modules.re.match('^[0-9]{4}-[0-9]{2}-[0-9]{2}([ T][0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.([0-9]+))?)?)?( ?(Z|UTC|[+-][0-9]{2}(:?[0-9]{2})?))?$', v) -%}
    {%- if not ts -%}
      {{ return("'" ~ value ~ "' is not a timestamp (YYYY-MM-DD[ HH:MM[:SS[.ffffff]]][+HH:MM]), the type of the column (" ~ data_type ~ ")") }}
    {%- endif -%}
    {%- if not dataplex_dq.is_real_date_time(v) -%}{{ return("'" ~ value ~ "' is not a valid timestamp (month 1-12, a day that month has, hour < 24, minute and second < 60)") }}{%- endif -%}
    {%- if ts.group(4) and (ts.group(4) | length) > 6 -%}
      {{ return("'" ~ value ~ "' has " ~ (ts.group(4) | length) ~ " fractional digits of a second; the column (" ~ data_type ~ ") keeps microseconds (at most 6), so the bound would be rounded") }}
    {%- endif -%}
  {%- elif family == 'time' -%}
    {%- if not modules.re.match('^[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,6})?)?$', v) -%}{{ return("'" ~ value ~ "' is not a time (HH:MM[:SS[.ffffff]]), the type of the column") }}{%- endif -%}
  {%- elif family == 'boolean' -%}
    {%- if v | lower not in ['true', 'false'] -%}{{ return("'" ~ value ~ "' is not true or false, the type of the column") }}{%- endif -%}
  {%- endif -%}
  {{ return(none) }}
{% endmacro %}
