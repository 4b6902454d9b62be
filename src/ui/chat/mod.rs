//! The Chat view. This file is the minimal host of the creative chat mode on its own branch;
//! the Chat view frame (rail entry, "Assistant | Creative chat" switch) replaces it on merge.

pub mod creative;
