//! Giving freed heap memory back to the system. glibc keeps what a thread frees in that
//! thread's arena (and the main heap's top) for reuse, so after a view's textures and
//! pixel buffers are dropped the resident size stays where it was until something asks
//! for it back. The studio asks when a screen is left (`ui::app::memory`).

/// Returns the free pages of every malloc arena to the system (`malloc_trim(0)`), where
/// the allocator is glibc's; elsewhere it does nothing. Takes a few milliseconds with a
/// few hundred MB of heap: call it on a screen change, not every frame.
pub fn give_back_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: malloc_trim only walks and releases the allocator's own free lists; it
        // takes the arena locks itself and is safe to call from any thread at any time.
        unsafe {
            malloc_trim(0);
        }
    }
}

// glibc's own declaration (malloc.h); one function is not worth a dependency.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
unsafe extern "C" {
    fn malloc_trim(pad: usize) -> std::ffi::c_int;
}
