{#- Rule templates (issue 36): Dataplex's DataQualityRuleTemplate in dbt. Plain Jinja (no dbt context
    but `modules.re` and `return`): python/dataplex_dq/spec/validate.py runs the same macros before
    import-spec writes (rule_templates_macros).

    A template is declared once, in dbt_project.yml:

        vars:
          dataplex_dq_rule_templates:
            <name>:                           # the key a rule's template_reference.name matches
              sql: <SELECT returning the failing rows, with ${param} placeholders and ${data()}>
              # or, row-level: sql_expression: <a condition each row must meet>
              dimension: VALIDITY             # optional: the rules' dimension unless a rule gives one
              parameters:                     # optional (default: the ${...} placeholders of the SQL)
                <param>: {description: ..., default_value: ...}

    A rule references it: template_reference: {name: <name>, values: {<param>: <value>}} (a value as
    text, or Dataplex's {value: <text>}). The name may be the full Dataplex entry name
    (projects/.../entryGroups/.../entries/<id>): it matches a template keyed by the name or by <id>.
    `${param}` is replaced by the value as written (SQL text: quote string literals yourself);
    `${data()}` is the rule's data source in scope, as in sql_assertion. The rule fails when the SQL
    returns rows (Dataplex: "if the constructed statement returns any rows, this rule fails"); a
    row-level template's SQL is `select * from ${data()} where not coalesce((<expression>), false)`.
    System templates ship with the package (system_rule_templates); a project's template of the same
    name replaces one. -#}

{#- The package's templates, mirroring the evaluations Dataplex's system rule templates cover ("null
    checks or range expectations", https://cloud.google.com/dataplex/docs/reuse-data-quality-rules). -#}
{% macro system_rule_templates() %}
  {{ return({
      'system-null-check': {
          'sql': 'select * from ${data()} where ${column} is null',
          'dimension': 'COMPLETENESS',
          'parameters': {'column': {'description': 'the column that must not be NULL'}}},
      'system-range-check': {
          'sql_expression': '${column} is null or (${column} >= ${min_value} and ${column} <= ${max_value})',
          'dimension': 'VALIDITY',
          'parameters': {'column': {'description': 'a numeric or date column'},
                         'min_value': {'description': 'the lowest value allowed (an SQL literal)'},
                         'max_value': {'description': 'the highest value allowed (an SQL literal)'}}},
      'system-uniqueness-check': {
          'sql': 'select ${column} from ${data()} where ${column} is not null group by ${column} having count(*) > 1',
          'dimension': 'UNIQUENESS',
          'parameters': {'column': {'description': 'the column whose non-NULL values must be unique'}}},
  }) }}
{% endmacro %}

{#- The templates a rule can reference: the system ones, then the project's (`declared`, the var). -#}
{% macro rule_templates_of(declared) %}
  {%- set out = dict(dataplex_dq.system_rule_templates()) -%}
  {%- if declared is mapping -%}{%- do out.update(declared) -%}{%- endif -%}
  {{ return(out) }}
{% endmacro %}

{#- The key of the template `name` refers to (the key itself, or the entry id after `/entries/`), or none. -#}
{% macro rule_template_key(name, templates) %}
  {%- if name is not string -%}{{ return(none) }}{%- endif -%}
  {%- if name in templates -%}{{ return(name) }}{%- endif -%}
  {%- set id = name.split('/entries/')[-1] if '/entries/' in name else none -%}
  {%- if id is not none and id in templates -%}{{ return(id) }}{%- endif -%}
  {{ return(none) }}
{% endmacro %}

{#- A rule's template_reference resolved: {key, sql, dimension, problems: [[field, message], ...]}.
    `params`: {name, values}; `templates`: rule_templates_of(...). -#}
{% macro rule_template_resolve(params, templates) %}
  {%- set problems = [] -%}
  {%- set name = params.get('name') -%}
  {%- set out = {'key': none, 'sql': none, 'dimension': none, 'problems': problems} -%}
  {%- if name is not string or not (name | trim) -%}
    {%- do problems.append(['template_reference.name', "is required (the name of a rule template)"]) -%}
    {{ return(out) }}
  {%- endif -%}
  {%- set key = dataplex_dq.rule_template_key(name, templates) -%}
  {%- if key is none -%}
    {%- do problems.append(['template_reference.name', "unknown rule template '" ~ name ~ "'; declare it under vars: dataplex_dq_rule_templates (known: " ~ (templates.keys() | sort | join(', ')) ~ ")"]) -%}
    {{ return(out) }}
  {%- endif -%}
  {%- set t = templates[key] -%}
  {%- if t is not mapping or ((t.get('sql') is string) == (t.get('sql_expression') is string)) -%}
    {%- do problems.append(['template_reference.name', "rule template '" ~ key ~ "' must be a mapping with exactly one of sql, sql_expression"]) -%}
    {{ return(out) }}
  {%- endif -%}
  {%- set body = t.get('sql') if t.get('sql') is string else 'select * from ${data()} where not coalesce((' ~ t.get('sql_expression') ~ '), false)' -%}
  {%- set placeholders = [] -%}
  {%- for p in modules.re.findall('\\$\\{([A-Za-z_][A-Za-z0-9_]*)\\}', body) if p not in placeholders -%}{%- do placeholders.append(p) -%}{%- endfor -%}
  {%- set declared = t.get('parameters') if t.get('parameters') is mapping else {} -%}
  {%- set names = (declared.keys() | list) if declared else placeholders -%}
  {%- set values = params.get('values') -%}
  {%- if values is none -%}{%- set values = {} -%}{%- endif -%}
  {%- if values is not mapping -%}
    {%- do problems.append(['template_reference.values', "must be a mapping {parameter: value}, got " ~ values]) -%}
    {%- set values = {} -%}
  {%- endif -%}
  {%- set given = {} -%}
  {%- for k, v in values.items() -%}
    {%- set v = v.get('value') if v is mapping else v -%}
    {%- if k not in names -%}
      {%- do problems.append(['template_reference.values.' ~ k, "unknown parameter of rule template '" ~ key ~ "'; it takes: " ~ ((names | join(', ')) or 'no parameters')]) -%}
    {%- elif v is none or v is mapping or (v is iterable and v is not string) -%}
      {%- do problems.append(['template_reference.values.' ~ k, "must be a single value, got " ~ v]) -%}
    {%- else -%}
      {%- do given.update({k: (v | string)}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- for p in names if p not in given -%}
    {%- set d = declared.get(p) if declared.get(p) is mapping else {} -%}
    {%- if d.get('default_value') is not none -%}
      {%- do given.update({p: d.get('default_value') | string}) -%}
    {%- else -%}
      {%- do problems.append(['template_reference.values.' ~ p, "missing: rule template '" ~ key ~ "' needs a value for ${" ~ p ~ "}"]) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- for p in placeholders if p not in names -%}
    {%- do problems.append(['template_reference.name', "rule template '" ~ key ~ "' uses ${" ~ p ~ "} but does not declare it under parameters"]) -%}
  {%- endfor -%}
  {%- if problems -%}{{ return(dict(out, key=key)) }}{%- endif -%}
  {%- set parts = [body] -%}
  {%- for p in placeholders -%}
    {%- set text = parts[0].replace('${' ~ p ~ '}', given[p]) -%}
    {%- do parts.clear() -%}{%- do parts.append(text) -%}
  {%- endfor -%}
  {{ return({'key': key, 'sql': parts[0], 'dimension': t.get('dimension'), 'problems': problems}) }}
{% endmacro %}

{#- Dataplex's {parameter: {value: text}} from a rule's `values` ({parameter: text} or Dataplex's form);
    anything else is kept for the validation to name. -#}
{% macro rule_template_values(values) %}
  {%- if values is not mapping -%}{{ return(values) }}{%- endif -%}
  {%- set out = {} -%}
  {%- for k, v in values.items() -%}
    {%- set inner = v.get('value') if v is mapping else v -%}
    {%- do out.update({k: {'value': inner | string} if (inner is string or inner is number) else v}) -%}
  {%- endfor -%}
  {{ return(out) }}
{% endmacro %}
