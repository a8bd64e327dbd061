-- description: The extraction times (_extracted_at, as every row of a run carries it, and _vanished_at, as a snapshot flags what it lacked) of the runs of a source's resource that load merged after a model was last built (meta.load_ledger; every run loaded, before its first build). An incremental model asks it of itself to take the raw rows loaded since it last ran: by the load's order, not by extraction times, so a run extracted before the model's last build and loaded after it still counts (int_fan_changes).
create or replace macro macros.loaded_since(source_name, resource_name, model_relation) as table
    select loads.extracted_at from meta.load_ledger as loads
    where loads.source = source_name
        and loads.resource = resource_name
        and loads.loaded_at > coalesce(macros.model_built_at(model_relation), '-infinity');
