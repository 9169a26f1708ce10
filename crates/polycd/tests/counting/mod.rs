//! The counting global allocator of the allocation tests (`tests/alloc.rs`,
//! `tests/ccd_alloc.rs`; each test file is its own crate and declares it as its
//! `#[global_allocator]`): it wraps `std::alloc::System` and counts only on a thread that has
//! switched counting on (a `const`-initialised thread-local flag), so the test harness's own
//! threads never pollute the figure. With [`set_trace`] on it prints a backtrace for every
//! counted allocation (the capture itself allocates, with counting switched off).

// Each including crate uses its own subset.
#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

pub struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
static TRACE: AtomicBool = AtomicBool::new(false);

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

fn note() {
    if COUNTING.try_with(|c| c.get()).unwrap_or(false) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        if TRACE.load(Ordering::Relaxed) {
            COUNTING.with(|c| c.set(false));
            eprintln!("allocation at:\n{}", std::backtrace::Backtrace::force_capture());
            COUNTING.with(|c| c.set(true));
        }
    }
}

// SAFETY: every call is forwarded unchanged to `System`; the counting has no effect on memory.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Prints a backtrace for every counted allocation from now on (`false`: stops).
pub fn set_trace(on: bool) {
    TRACE.store(on, Ordering::Relaxed);
}

/// Counts the allocations `f` makes on this thread.
pub fn count<F: FnMut()>(mut f: F) -> usize {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCATIONS.load(Ordering::Relaxed) - before
}
