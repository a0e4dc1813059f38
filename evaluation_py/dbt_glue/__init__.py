"""What the evaluation dbt Python models hand over, turned into specs, requests and lookups
(`evaluation_inputs`; `choice_inputs` for eval_choice_predictions). No dbt imports, but for
`stop_plugin`, the dbt-duckdb plugin profiles.yml names (SIGTERM stops a build as Ctrl-C does)."""
