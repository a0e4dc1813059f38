-- Every choice item's two options differ as scoring reads them (distinct normalised values).
select item_id, option_a, option_b
from {{ ref('benchmark_choice_items') }}
where {{ choice_option_values('option_a') }} = {{ choice_option_values('option_b') }}
