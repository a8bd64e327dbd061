-- description: When a model was last built successfully (meta.build_state; NULL before its first build). An incremental model asks it of itself to take only the rows of its inputs that changed since it last ran (int_identity_pairs).
create or replace macro macros.model_built_at(model_relation) as (
    select max(builds.built_at) from meta.build_state as builds
    where builds.relation = model_relation
);
