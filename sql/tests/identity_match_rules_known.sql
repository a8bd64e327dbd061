-- description: Every record of marts.fan_identity_links was linked in a known way: override, external_id, customer_profile, the identity model with its version (model_v<n>), or unmatched.
select system, record_id, match_rule
from marts.fan_identity_links
where match_rule not in ('override', 'external_id', 'customer_profile', 'unmatched')
    and not regexp_matches(match_rule, '^model_v[0-9]+$')
