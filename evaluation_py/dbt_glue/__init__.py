"""What the evaluation dbt Python models hand over, turned into specs, requests and lookups
(`evaluation_inputs`; `choice_inputs` for eval_choice_predictions). No dbt imports, but for
the dbt-duckdb plugins profiles.yml names: `stop_plugin` (SIGTERM stops a build as Ctrl-C does) and `gc_plugin`
(the cyclic garbage collector leaves the parsed project alone)."""
