"""What the evaluation dbt Python models hand over, turned into specs, requests and lookups
(`evaluation_inputs`; `choice_inputs` for eval_choice_predictions). No dbt imports."""
