//! Colour roles and the palette colour record shared by the studio and the sandbox.

/// What a colour does in a grade. Wire names are lower case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    Dominant,
    Secondary,
    Accent,
    Background,
}

impl Role {
    pub const ALL: [Role; 4] = [
        Role::Dominant,
        Role::Secondary,
        Role::Accent,
        Role::Background,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Dominant => "dominant",
            Role::Secondary => "secondary",
            Role::Accent => "accent",
            Role::Background => "background",
        }
    }

    /// Exact wire name (lower case); anything else is `None`.
    pub fn from_str_opt(s: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.as_str() == s)
    }
}

/// One colour of a palette as stored and sent on the wire.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PaletteColor {
    /// `#RRGGBB`.
    pub hex: String,
    pub name: String,
    pub role: Role,
}

/// Roles for `count` extracted colours in population order: dominant, secondary, then accent.
pub fn roles_for(count: usize) -> Vec<Role> {
    (0..count)
        .map(|i| match i {
            0 => Role::Dominant,
            1 => Role::Secondary,
            _ => Role::Accent,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_round_trip_and_are_assigned_in_population_order() {
        for role in Role::ALL {
            assert_eq!(Role::from_str_opt(role.as_str()), Some(role));
        }
        assert_eq!(Role::from_str_opt("Dominant"), None);
        assert_eq!(
            roles_for(4),
            vec![Role::Dominant, Role::Secondary, Role::Accent, Role::Accent]
        );
        assert!(roles_for(0).is_empty());
    }
}
