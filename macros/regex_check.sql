{#- Does RE2 (the regex engine of BigQuery and DuckDB) accept a pattern? A tokenizer of RE2's syntax
    (github.com/google/re2/wiki/Syntax), checked against a real RE2 on a table of patterns
    (python/tests/test_regex_check.py), so that a regex rule fails at compile time with the reason,
    never in the warehouse, and a valid pattern is never refused. Returns a message, or none.

    Self-contained (only `modules.re`), so the test renders it with plain Jinja. -#}
{% macro regex_problem(pattern) %}
  {%- if (pattern | length) == 0 -%}{{ return("must not be empty") }}{%- endif -%}
  {%- set re = modules.re -%}
  {#- one token at a time; the named group says what it is -#}
  {%- set token = re.compile(
      '(?P<quote>\\\\Q.*?(?:\\\\E|$))'
      ~ '|(?P<hex>\\\\x(?:\\{[^}]*\\}?|[0-9A-Fa-f]{0,2}))'
      ~ '|(?P<uclass>\\\\[pP](?:\\{[^}]*\\}?|.?))'
      ~ '|(?P<octal>\\\\[0-7]{1,3})'
      ~ '|(?P<escape>\\\\.?)'
      ~ '|(?P<cls>\\[\\^?\\]?(?:\\[:[^\\]]*:\\]|\\\\x\\{[^}]*\\}|\\\\[pP]\\{[^}]*\\}|\\\\.|[^\\]\\\\])*\\]?)'
      ~ '|(?P<group>\\((?:\\?P?<[^>]*>?|\\?[^:)]*[:)]?)?)'
      ~ '|(?P<close>\\))'
      ~ '|(?P<alt>\\|)'
      ~ '|(?P<count>\\{[0-9]+(?:,[0-9]*)?\\})'
      ~ '|(?P<repeat>[*+?])'
      ~ '|(?P<other>.)', re.S) -%}
  {%- set class_item = re.compile(
      '(?P<posix>\\[:\\^?[A-Za-z]*:\\])|(?P<hex>\\\\x(?:\\{[^}]*\\}|[0-9A-Fa-f]{0,2}))|(?P<uclass>\\\\[pP](?:\\{[^}]*\\}|.?))'
      ~ '|(?P<octal>\\\\[0-7]{1,3})|(?P<escape>\\\\.?)|(?P<char>.)', re.S) -%}
  {%- set perl_classes = 'dDsSwW' -%}
  {%- set control = {'a': 7, 'f': 12, 't': 9, 'n': 10, 'r': 13, 'v': 11} -%}
  {%- set posix = ['alnum', 'alpha', 'ascii', 'blank', 'cntrl', 'digit', 'graph', 'lower', 'print', 'punct', 'space', 'upper', 'word', 'xdigit'] -%}
  {%- set unicode = dataplex_dq.re2_unicode_classes() -%}
  {%- set st = {'depth': 0, 'atom': false, 'repeated': false, 'problem': none} -%}

  {%- for m in token.finditer(pattern) if st.problem is none -%}
    {%- set kind, t = m.lastgroup, m.group(0) -%}
    {%- set next = {'atom': true, 'repeated': false} -%}
    {%- if kind == 'quote' and t in ['\\Q\\E', '\\Q'] -%}
      {#- an empty \Q...\E is nothing: what follows applies to what came before -#}
      {%- do next.update({'atom': st.atom, 'repeated': st.repeated, 'lazy': st.get('lazy', false)}) -%}
    {%- elif kind == 'hex' -%}
      {%- if not re.fullmatch('\\\\x(\\{[0-9A-Fa-f]{1,8}\\}|[0-9A-Fa-f]{2})', t) or (t[2] == '{' and (t[3:-1] | int(base=16)) > 1114111) -%}
        {%- do st.update({'problem': "has an invalid hex escape '" ~ t ~ "' (\\xHH or \\x{HHHH})"}) -%}
      {%- endif -%}
    {%- elif kind == 'uclass' -%}
      {%- set name = t[3:-1] if t[2:3] == '{' and t[-1] == '}' else (t[2:] if t[2:3] != '{' else none) -%}
      {%- set name = name[1:] if name and name[0] == '^' else name -%}
      {%- if not name or name not in unicode -%}
        {%- do st.update({'problem': "uses '" ~ t ~ "', which is not a Unicode class RE2 knows (e.g. \\pL, \\p{Greek}, \\p{Lu})"}) -%}
      {%- endif -%}
    {%- elif kind == 'octal' -%}
      {%- if (t | length) == 2 and t[1] != '0' -%}
        {%- do st.update({'problem': "uses the backreference '" ~ t ~ "', which RE2 does not support"}) -%}
      {%- endif -%}
    {%- elif kind == 'escape' -%}
      {%- set c = t[1:] -%}
      {%- if c == '' -%}{%- do st.update({'problem': "ends with a lone backslash"}) -%}
      {%- elif c in '89' -%}{%- do st.update({'problem': "uses the backreference '" ~ t ~ "', which RE2 does not support"}) -%}
      {%- elif re.fullmatch('[A-Za-z]', c) and c not in 'aftnrvdDsSwWbBAzC' -%}
        {%- do st.update({'problem': "uses the escape '" ~ t ~ "', which RE2 does not support" ~ (" (use \\z for the end of text)" if c == 'Z' else "")}) -%}
      {%- elif c > '~' -%}
        {%- do st.update({'problem': "escapes the non-ASCII character '" ~ c ~ "', which RE2 refuses"}) -%}
      {%- endif -%}
    {%- elif kind == 'cls' -%}
      {%- if t[-1] != ']' or t in ['[]', '[^]'] or t.endswith('\\]') and not t.endswith('\\\\]') -%}
        {%- do st.update({'problem': "has an unterminated character class '['"}) -%}
      {%- else -%}
        {%- set body = t[1:-1] -%}
        {%- set body = body[1:] if body[:1] == '^' else body -%}
        {%- set cs = {'prev': none, 'range': false} -%}
        {%- for item in class_item.finditer(body) if st.problem is none -%}
          {%- set ik, it = item.lastgroup, item.group(0) -%}
          {%- set value = none -%}
          {%- if ik == 'posix' -%}
            {%- if it[2:-2].lstrip('^') not in posix -%}{%- do st.update({'problem': "uses the unknown POSIX class '" ~ it ~ "'"}) -%}{%- endif -%}
          {%- elif ik == 'hex' -%}
            {%- if not re.fullmatch('\\\\x(\\{[0-9A-Fa-f]{1,8}\\}|[0-9A-Fa-f]{2})', it) -%}
              {%- do st.update({'problem': "has an invalid hex escape '" ~ it ~ "' (\\xHH or \\x{HHHH})"}) -%}
            {%- else -%}{%- set value = (it[3:-1] if it[2] == '{' else it[2:]) | int(base=16) -%}{%- endif -%}
            {%- if value is number and value > 1114111 -%}
              {%- do st.update({'problem': "has the hex escape '" ~ it ~ "' beyond the last Unicode code point"}) -%}{%- set value = none -%}
            {%- endif -%}
          {%- elif ik == 'uclass' -%}
            {%- set name = it[3:-1] if it[2:3] == '{' else it[2:] -%}
            {%- if name.lstrip('^') not in unicode -%}
              {%- do st.update({'problem': "uses '" ~ it ~ "', which is not a Unicode class RE2 knows (e.g. \\pL, \\p{Greek}, \\p{Lu})"}) -%}
            {%- endif -%}
          {%- elif ik == 'octal' -%}
            {%- if (it | length) == 2 and it[1] != '0' -%}
              {%- do st.update({'problem': "uses the backreference '" ~ it ~ "', which RE2 does not support"}) -%}
            {%- else -%}{%- set value = it[1:] | int(base=8) -%}{%- endif -%}
          {%- elif ik == 'escape' -%}
            {%- set c = it[1:] -%}
            {%- if c in control -%}{%- set value = control[c] -%}
            {%- elif c and c in perl_classes -%}
            {%- elif re.fullmatch('[A-Za-z0-9]', c) -%}
              {%- do st.update({'problem': "uses the escape '" ~ it ~ "' in a character class, which RE2 does not support"}) -%}
            {%- else -%}{%- set value = c -%}{%- endif -%}
          {%- else -%}
            {%- set value = it -%}
          {%- endif -%}
          {#- ranges lo-hi need lo <= hi; values compared as characters ('%c' turns a code into one) -#}
          {%- set value = ('%c' | format(value)) if value is number else value -%}
          {%- if cs.range and value is not none -%}
            {%- if cs.prev > value -%}
              {%- do st.update({'problem': "has the character range '" ~ cs.prev_text ~ "-" ~ it ~ "' whose start is after its end"}) -%}
            {%- endif -%}
            {%- do cs.update({'prev': none, 'range': false}) -%}
          {%- elif ik == 'char' and it == '-' and cs.prev is not none and not loop.last -%}
            {%- do cs.update({'range': true}) -%}
          {%- else -%}
            {%- do cs.update({'prev': value, 'prev_text': it, 'range': false}) -%}
          {%- endif -%}
        {%- endfor -%}
      {%- endif -%}
    {%- elif kind == 'group' -%}
      {%- if t == '(' or t == '(?:' -%}
      {%- elif t.startswith('(?P<') -%}
        {%- if not re.fullmatch('\\(\\?P<[A-Za-z0-9_]+>', t) -%}{%- do st.update({'problem': "has an invalid group name in '" ~ t ~ "' (letters, digits and _)"}) -%}{%- endif -%}
      {%- elif not re.fullmatch('\\(\\?[imsU]*(-[imsU]+)?[:)]', t) -%}
        {%- do st.update({'problem': "uses '" ~ t ~ "' (lookaround, backreference, atomic group or an unknown flag), which RE2 does not support; RE2 groups: (...), (?:...), (?P<name>...), flags (?imsU)"}) -%}
      {%- endif -%}
      {%- if t[-1] != ')' -%}
        {%- do st.update({'depth': st.depth + 1}) -%}
        {%- do next.update({'atom': false}) -%}
      {%- endif -%}
    {%- elif kind == 'close' -%}
      {%- if st.depth == 0 -%}{%- do st.update({'problem': "has an unmatched ')'"}) -%}{%- endif -%}
      {%- do st.update({'depth': st.depth - 1}) -%}
    {%- elif kind == 'alt' -%}
      {%- do next.update({'atom': false}) -%}
    {%- elif kind in ['count', 'repeat'] -%}
      {%- if kind == 'count' -%}
        {%- set n = re.findall('[0-9]+', t) | map('int') | list -%}
        {%- if n | max > 1000 or ((n | length) == 2 and n[0] > n[1]) -%}
          {%- do st.update({'problem': "has the repetition '" ~ t ~ "': RE2 allows counts up to 1000, min <= max"}) -%}
        {%- endif -%}
      {%- endif -%}
      {%- set lazy = kind == 'repeat' and t == '?' and st.repeated and not st.get('lazy') -%}
      {%- if lazy -%}
        {%- do next.update({'repeated': true, 'lazy': true}) -%}
      {%- elif st.repeated -%}
        {%- do st.update({'problem': "repeats a repetition ('" ~ t ~ "' after another repetition), which RE2 refuses"}) -%}
      {%- elif not st.atom -%}
        {%- do st.update({'problem': "has '" ~ t ~ "' with nothing before it to repeat"}) -%}
      {%- else -%}
        {%- do next.update({'repeated': true, 'lazy': false}) -%}
      {%- endif -%}
    {%- endif -%}
    {%- do st.update({'atom': next.atom, 'repeated': next.repeated, 'lazy': next.get('lazy', false)}) -%}
  {%- endfor -%}
  {%- if st.problem -%}{{ return(st.problem) }}{%- endif -%}
  {%- if st.depth > 0 -%}{{ return("has an unmatched '('") }}{%- endif -%}
  {{ return(none) }}
{% endmacro %}

{#- A pattern of RE2's plain subset: literals and escaped punctuation, `.`, \d \s \w and their
    negations, simple classes (ASCII items, the ranges a-z A-Z 0-9 a-f A-F 1-9), groups one level
    deep, alternation, one quantifier per item (* + ?; {n} and {n,} up to 999 only outside groups
    and not on a group: RE2 caps nested counts), ^ first and $ last.
    Each such pattern is valid RE2 (python/tests/test_regex_plain.py checks it against a real RE2),
    so validate_regex skips regex_problem (this file's tokenizer: ~9 KB of Jinja to compile and
    ~70 ms to run per pattern) for it. -#}
{% macro re2_plain(pattern) %}
  {%- set atom = '[A-Za-z0-9 !"#%&\',/:;<=>@_`~-]|\\.|\\\\[dDsSwW.\\\\+*?()\\[\\]{}|^$/-]' -%}
  {%- set item = '(?:a-z|A-Z|0-9|a-f|A-F|1-9|[A-Za-z0-9 !"#%&\',/:;<=>@_`~.+*?(){}|$]|\\\\[dDsSwW.\\\\\\[\\]^-])' -%}
  {%- set atom = '(?:' ~ atom ~ '|\\[\\^?-?' ~ item ~ '+-?\\])' -%}
  {%- set seq = '(?:' ~ atom ~ '[*+?]?)+' -%}
  {%- set seq = '(?:' ~ atom ~ '(?:[*+?]|\\{[0-9]{1,3},?\\})?|\\((?:\\?:)?' ~ seq ~ '(?:\\|' ~ seq ~ ')*\\)[*+?]?)+' -%}
  {{ return(modules.re.fullmatch('\\^?' ~ seq ~ '(?:\\|' ~ seq ~ ')*\\$?', pattern) is not none) }}
{% endmacro %}

{#- The Unicode class names RE2 knows for \p{...} (general categories and scripts), as accepted by
    the RE2 the tests compare with (python/tests/test_regex_check.py checks every one). -#}
{% macro re2_unicode_classes() %}
  {{ return(['Any', 'C', 'Cc', 'Cf', 'Co', 'Cs', 'L', 'Ll', 'Lm', 'Lo', 'Lt', 'Lu', 'M', 'Mc', 'Me', 'Mn', 'N', 'Nd', 'Nl', 'No',
             'P', 'Pc', 'Pd', 'Pe', 'Pf', 'Pi', 'Po', 'Ps', 'S', 'Sc', 'Sk', 'Sm', 'So', 'Z', 'Zl', 'Zp', 'Zs'] + ['Adlam', 'Ahom', 'Anatolian_Hieroglyphs', 'Arabic', 'Armenian', 'Avestan', 'Balinese', 'Bamum', 'Bassa_Vah',
             'Batak', 'Bengali', 'Bhaiksuki', 'Bopomofo', 'Brahmi', 'Braille', 'Buginese', 'Buhid', 'Canadian_Aboriginal',
             'Carian', 'Caucasian_Albanian', 'Chakma', 'Cham', 'Cherokee', 'Chorasmian', 'Common', 'Coptic', 'Cuneiform',
             'Cypriot', 'Cypro_Minoan', 'Cyrillic', 'Deseret', 'Devanagari', 'Dives_Akuru', 'Dogra', 'Duployan',
             'Egyptian_Hieroglyphs', 'Elbasan', 'Elymaic', 'Ethiopic', 'Georgian', 'Glagolitic', 'Gothic', 'Grantha',
             'Greek', 'Gujarati', 'Gunjala_Gondi', 'Gurmukhi', 'Han', 'Hangul', 'Hanifi_Rohingya', 'Hanunoo', 'Hatran',
             'Hebrew', 'Hiragana', 'Imperial_Aramaic', 'Inherited', 'Inscriptional_Pahlavi', 'Inscriptional_Parthian',
             'Javanese', 'Kaithi', 'Kannada', 'Katakana', 'Kawi', 'Kayah_Li', 'Kharoshthi', 'Khitan_Small_Script', 'Khmer',
             'Khojki', 'Khudawadi', 'Lao', 'Latin', 'Lepcha', 'Limbu', 'Linear_A', 'Linear_B', 'Lisu', 'Lycian', 'Lydian',
             'Mahajani', 'Makasar', 'Malayalam', 'Mandaic', 'Manichaean', 'Marchen', 'Masaram_Gondi', 'Medefaidrin',
             'Meetei_Mayek', 'Mende_Kikakui', 'Meroitic_Cursive', 'Meroitic_Hieroglyphs', 'Miao', 'Modi', 'Mongolian',
             'Mro', 'Multani', 'Myanmar', 'Nabataean', 'Nag_Mundari', 'Nandinagari', 'New_Tai_Lue', 'Newa', 'Nko', 'Nushu',
             'Nyiakeng_Puachue_Hmong', 'Ogham', 'Ol_Chiki', 'Old_Hungarian', 'Old_Italic', 'Old_North_Arabian',
             'Old_Permic', 'Old_Persian', 'Old_Sogdian', 'Old_South_Arabian', 'Old_Turkic', 'Old_Uyghur', 'Oriya', 'Osage',
             'Osmanya', 'Pahawh_Hmong', 'Palmyrene', 'Pau_Cin_Hau', 'Phags_Pa', 'Phoenician', 'Psalter_Pahlavi', 'Rejang',
             'Runic', 'Samaritan', 'Saurashtra', 'Sharada', 'Shavian', 'Siddham', 'SignWriting', 'Sinhala', 'Sogdian',
             'Sora_Sompeng', 'Soyombo', 'Sundanese', 'Syloti_Nagri', 'Syriac', 'Tagalog', 'Tagbanwa', 'Tai_Le', 'Tai_Tham',
             'Tai_Viet', 'Takri', 'Tamil', 'Tangsa', 'Tangut', 'Telugu', 'Thaana', 'Thai', 'Tibetan', 'Tifinagh',
             'Tirhuta', 'Toto', 'Ugaritic', 'Vai', 'Vithkuqi', 'Wancho', 'Warang_Citi', 'Yezidi', 'Yi', 'Zanabazar_Square']) }}
{% endmacro %}
