//! Visual DNA (catalog family "Visual DNA"): reusable references built from 1–4 pictures.
//! `store` keeps them, `routes` serves `/v1/visual-dna`, `describe` derives colours,
//! thumbnail and words, `refs` resolves `visual_dna_ids` / `moodboard_id` at submit into
//! what a render applies.

pub(crate) mod describe;
pub(crate) mod refs;
pub(crate) mod routes;
pub(crate) mod store;
