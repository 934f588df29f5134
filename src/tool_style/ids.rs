//! Ids for rebuilt calls. Flattened text kept no id, so one is derived from where the call stood
//! (message and block index): the same history always gets the same ids, and recovery stays
//! idempotent. Ids are sanitised as Roo sanitises tool ids (`[^a-zA-Z0-9_-]` → `_`) and never
//! reuse an id already in the history.

use std::collections::HashSet;

/// `id` with every character outside `[a-zA-Z0-9_-]` replaced by `_`.
pub fn sanitize(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Hands out ids not in `taken`.
#[derive(Debug, Default)]
pub struct Ids {
    taken: HashSet<String>,
}

impl Ids {
    pub fn new(taken: impl IntoIterator<Item = String>) -> Ids {
        Ids {
            taken: taken.into_iter().collect(),
        }
    }

    /// The id for a call rebuilt at message `m`, block `b` (`tag` tells rebuilt kinds apart).
    pub fn at(&mut self, tag: &str, m: usize, b: usize) -> String {
        let base = sanitize(&format!("toolu_{tag}_{m}_{b}"));
        let mut id = base.clone();
        let mut n = 2;
        while self.taken.contains(&id) {
            id = format!("{base}_{n}");
            n += 1;
        }
        self.taken.insert(id.clone());
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitises_to_the_safe_alphabet() {
        assert_eq!(sanitize("functions.read:0|fc é"), "functions_read_0_fc__");
    }

    #[test]
    fn ids_are_positional_and_never_collide() {
        let mut ids = Ids::new(["toolu_recovered_3_1".to_string()]);
        assert_eq!(ids.at("recovered", 3, 1), "toolu_recovered_3_1_2");
        assert_eq!(ids.at("recovered", 4, 0), "toolu_recovered_4_0");
        assert_eq!(Ids::new([]).at("recovered", 4, 0), "toolu_recovered_4_0");
    }
}
