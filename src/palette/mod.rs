//! Colour maths shared by the studio and the sandbox (Color DNA). Filled by the palettes issue.
