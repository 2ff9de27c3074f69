"""The warehouse through dbt's adapter (connection), its table names (table_name), and what differs between
warehouses on the Python side (dialects)."""
