-- description: Whether a level of a pair's comparisons (levels, as macros.identity_levels gives them) vetoes a link (veto true in sql/identity/comparison_levels.csv: two first names, two birth dates), by the vetoes of the stored model's weights (model, a row of macros.identity_model_weights()).
create or replace macro macros.identity_is_vetoed(model, levels) as
    (model.first_name_vetoes >> levels.first_name) & 1 = 1
    or (model.last_name_vetoes >> levels.last_name) & 1 = 1
    or (model.birth_date_vetoes >> levels.birth_date) & 1 = 1
    or (model.email_vetoes >> levels.email) & 1 = 1
    or (model.phone_vetoes >> levels.phone) & 1 = 1
    or (model.address_vetoes >> levels.address) & 1 = 1;
