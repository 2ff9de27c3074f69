{#- How a text becomes a string literal on this warehouse, as data: {open: the opening quote, table: the
    characters to replace, as str.translate's table (code point: replacement)}; the literal closes with
    '. Data rather than a macro per warehouse, so the places that quote many texts at once (a rule's
    metrics row, macros/metrics.sql; every value of the on-run-end hook) apply it inline: a macro call
    costs dbt a copy of the node's context, str.translate one call for all the replacements of a short
    text. Sequential replacement (string_literal, for texts of 1,000 characters and more) gives the same
    text when the backslash comes first in the table: the other replacements insert backslashes, not each
    other's characters. -#}
{% macro string_literal_escapes() %}{{ return(adapter.dispatch('string_literal_escapes', 'dataplex_dq')()) }}{% endmacro %}

{#- Every variant replaces NUL (0), which no warehouse's literal may hold (PostgreSQL text cannot, a
    driver refuses the statement), by U+FFFD: validation refuses a NUL in a rule's texts (validate_no_nul),
    so only a text of an ERROR (dbt's message quoting a declaration) can carry one, and the writer still
    writes it. -#}

{#- ' -> '' (39 = ') -#}
{% macro default__string_literal_escapes() %}{{ return({'open': "'", 'table': {39: "''", 0: "\ufffd"}}) }}{% endmacro %}

{#- PostgreSQL: an E'' string with backslashes doubled (92 = \), read the same whatever
    `standard_conforming_strings` is (with it off, a backslash in a plain '' string escapes the next
    character, so a value ending in a backslash could close the literal early; E'' always reads
    backslash escapes). -#}
{% macro postgres__string_literal_escapes() %}{{ return({'open': "E'", 'table': {92: "\\\\", 39: "''", 0: "\ufffd"}}) }}{% endmacro %}

{#- GoogleSQL escapes: backslash (92), the quote (39) and the characters a quoted literal cannot hold:
    newline (10), carriage return (13), tab (9). -#}
{% macro bigquery__string_literal_escapes() %}
  {{ return({'open': "'", 'table': {92: "\\\\", 39: "\\'", 10: "\\n", 13: "\\r", 9: "\\t", 0: "\ufffd"}}) }}
{% endmacro %}
