"""Recording through dbt: the project and the artifacts dbt wrote (artifacts, declared), where they are
(paths, dbt_options), and the dbt runs dataplex-dq starts (lean_build: `dataplex-dq build`; run_operation: the
package's writer for a run its hook did not record)."""
