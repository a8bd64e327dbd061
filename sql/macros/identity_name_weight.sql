-- description: A name comparison's weight at its level: at the term-frequency level (an agreeing name), log2(m / tf), the name's share of people (tf) in place of u, so a rare name weighs more and a common one less (Splink's term-frequency adjustment); at any other level the level's weight (log2 m/u) from the weights by level (macros.identity_model_weights, position level + 1).
create or replace macro macros.identity_name_weight(weights, level, tf_level, tf_m, tf) as
    case
        when level = tf_level then log2(tf_m / tf)
        else weights[level + 1]
    end;
