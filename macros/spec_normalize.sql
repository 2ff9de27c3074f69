{#- A pasted Dataplex spec, as people have one, normalized before validation (issue 9, C): the
    `data_quality_spec:` / `dataQualitySpec:` wrapper or a whole DataScan resource (gcloud describe),
    camelCase or snake_case at every depth (the names come from the proto descriptor, see
    macros/spec_fields.sql), explicit nulls, `column: ''` and `threshold: 0` (unset in Dataplex; what
    Terraform writes by default). A DataScan field the product does not act on is a printed warning;
    an unknown field stays and is an error of the validation after. -#}

{#- Known field names in snake_case at every depth; null and '' left out (unset); a message held as a
    list of one mapping (Terraform) unwrapped. Two spellings of one field in one mapping are left for
    the validation to report (with the rule they belong to). -#}
{% macro spec_snake_case(value, where, path='', tables=none) %}
  {%- if value is string or value is not iterable -%}{{ return(value) }}{%- endif -%}
  {#- the field tables, read once per spec (not once per mapping: a 150-rule scan has hundreds) -#}
  {%- set t = tables or {'names': dataplex_dq.spec_field_names(), 'free': dataplex_dq.spec_free_keys(), 'singular': dataplex_dq.spec_singular_messages()} -%}
  {%- if value is mapping -%}
    {%- set out = {} -%}
    {%- for k, v0 in value.items() -%}
      {%- set key = t.names.get(k, k) if k is string else k -%}
      {#- Terraform's blocks: a message as a list of one mapping, [] when unset -#}
      {%- set v = (v0[0] if v0 | length == 1 else none) if (key in t.singular and v0 is not string and v0 is not mapping and v0 is iterable and (v0 | length) <= 1 and (v0 | select('mapping') | list | length) == (v0 | length)) else v0 -%}
      {#- proto3: null and '' are unset -#}
      {%- if v is not none and not (v is string and v == '') -%}
        {#- both spellings of one field: keep the second as written, so that the validation after
            reports "given twice" with the rule it belongs to -#}
        {%- if key in out -%}{%- set key = k -%}{%- endif -%}
        {#- scalars as they are (no macro call per leaf) -#}
        {%- do out.update({key: v if key in t.free or v is string or v is not iterable else dataplex_dq.spec_snake_case(v, where, path ~ key ~ '.', t)}) -%}
      {%- endif -%}
    {%- endfor -%}
    {{ return(out) }}
  {%- endif -%}
  {%- set out = [] -%}
  {%- for v in value -%}{%- do out.append(v if v is string or v is not iterable else dataplex_dq.spec_snake_case(v, where, path, t)) -%}{%- endfor -%}
  {{ return(out) }}
{% endmacro %}

{#- The DataQualitySpec in a data_quality_scan's arguments: bare, wrapped, or a DataScan resource.
    Returns the spec's fields in snake_case; DataScan fields are mapped or warned about. -#}
{% macro scan_spec_of(args, where) %}
  {%- set given = dataplex_dq.spec_snake_case(args, where) -%}
  {%- if 'data_quality_spec' not in given -%}{{ return(dataplex_dq.spec_unset_defaults(given)) }}{%- endif -%}
  {{ return(dataplex_dq.scan_spec_of_wrapped(given, where)) }}
{% endmacro %}

{#- scan_spec_of for a spec under data_quality_spec, maybe in a whole DataScan resource (apart, so
    that a bare spec, the common case, does not compile it). -#}
{% macro scan_spec_of_wrapped(given, where) %}
  {%- set spec = given['data_quality_spec'] -%}
  {%- if spec is not mapping -%}
    {{ dataplex_dq.raise_rule_error(where, 'data_quality_spec', "must be a mapping (a DataQualitySpec), got " ~ spec) }}
    {{ return({}) }}  {#- only reached when `where` collects its problems (macros/identity.sql) -#}
  {%- endif -%}
  {%- set spec = dict(spec) -%}
  {%- set ignored = [] -%}
  {%- for key, value in given.items() if key != 'data_quality_spec' -%}
    {%- if key in spec -%}
      {{ dataplex_dq.raise_rule_error(where, key, "given both inside data_quality_spec and next to it") }}
    {%- elif key == 'execution_spec' and value is mapping -%}
      {%- if value.get('field') -%}{%- do spec.update({'incremental_field': value.get('field')}) -%}{%- endif -%}
      {%- if value.get('trigger') -%}{%- do ignored.append('execution_spec.trigger (dbt runs the scan when dbt runs)') -%}{%- endif -%}
    {%- elif key == 'data' -%}
      {%- do ignored.append('data (the data source is the model, seed or source the test is declared on)') -%}
    {%- elif key in ['name', 'uid', 'description', 'display_name', 'labels', 'state', 'create_time', 'update_time', 'type', 'execution_status',
                     'data_quality_result', 'data_profile_spec', 'data_profile_result',
                     'data_scan_id', 'location', 'project', 'id', 'effective_labels', 'terraform_labels', 'timeouts'] -%}
      {%- do ignored.append(key) -%}
    {%- else -%}
      {%- do spec.update({key: value}) -%}  {#- unknown: left for the validation to name -#}
    {%- endif -%}
  {%- endfor -%}
  {%- if ignored and execute -%}
    {%- do log("dataplex_dq: " ~ where.source ~ ", " ~ where.label ~ ": DataScan field(s) not used by dbt: " ~ (ignored | join(', ')), info=true) -%}
  {%- endif -%}
  {{ return(dataplex_dq.spec_unset_defaults(spec)) }}
{% endmacro %}

{#- Dataplex's "unset" values that mean the default: a rule's `column: ''` and `threshold: 0`. -#}
{% macro spec_unset_defaults(spec) %}
  {%- set rules = spec.get('rules') -%}
  {%- if rules is not none and rules is not string and rules is not mapping and rules is iterable -%}
    {%- set out = [] -%}
    {%- for rule in rules -%}
      {%- if rule is mapping -%}
        {%- set r = dict(rule) -%}
        {%- if r.get('column') == '' -%}{%- do r.pop('column') -%}{%- endif -%}
        {%- if r.get('threshold') is number and r.get('threshold') is not boolean and r.get('threshold') == 0 -%}{%- do r.pop('threshold') -%}{%- endif -%}
        {%- do out.append(r) -%}
      {%- else -%}
        {%- do out.append(rule) -%}
      {%- endif -%}
    {%- endfor -%}
    {%- do spec.update({'rules': out}) -%}
  {%- endif -%}
  {{ return(spec) }}
{% endmacro %}
