"""Text versus image per table-size bin (RQ10 by size): see evaluation_py.analysis.modality.text_vs_image_by_table_size."""
from evaluation_py.analysis.modality import IMAGE_FORMAT, text_vs_image_by_table_size
from evaluation_py.dbt_glue.evaluation_inputs import scores_of_models
from generator_py.dbt_glue.build_config import stamp
from generator_py.dbt_glue.relations import frame


def model(dbt, session):
    dbt.config(materialized="table")
    scores = dbt.ref("eval_scores")
    # only the models with image results are read (none in a build without `formats: [image]`)
    with_images = [m for (m,) in scores.filter(f"table_format = '{IMAGE_FORMAT}'").project("model_name")
                   .distinct().fetchall()]
    rows = scores_of_models(scores, with_images, "model_name, table_format, inference_mode, scoring_mode, metric, "
                                                 "question_id, table_id, value, left_out")
    tables = frame(dbt.ref("benchmark_tables").project("table_id, n_cells"))
    return stamp(text_vs_image_by_table_size(rows, tables), dbt.ref("stg_build_config"))
