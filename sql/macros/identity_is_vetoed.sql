-- description: Whether a pair's comparisons (levels, as macros.identity_levels gives them) veto a link: its first names say two people (macros.identity_first_names_apart: unrelated, where the model in force weighs that at least the ambiguity weight against; else only in a household's case: one e-mail or phone, or one surname with no other birth date or address, as twins), or a level with veto true in sql/identity/comparison_levels.csv, by the vetoes of the stored model's weights (model, a row of macros.identity_model_weights()).
create or replace macro macros.identity_is_vetoed(model, levels) as
    macros.identity_first_names_apart(levels.first_name, levels.last_name, levels.birth_date, levels.email, levels.phone, levels.address)
    or (model.first_name_vetoes >> levels.first_name) & 1 = 1
    or (model.last_name_vetoes >> levels.last_name) & 1 = 1
    or (model.birth_date_vetoes >> levels.birth_date) & 1 = 1
    or (model.email_vetoes >> levels.email) & 1 = 1
    or (model.phone_vetoes >> levels.phone) & 1 = 1
    or (model.address_vetoes >> levels.address) & 1 = 1;
