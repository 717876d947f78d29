//! A folder size count whose root stalls after it opened. Its own test
//! binary: the stalled `lstat` stays stuck on the temporary folder's device
//! for 400 ms after its step is given up, and the engine rightly refuses
//! every other call on that device meanwhile (one process, one registry of
//! stuck places), which would fail whichever test ran beside it.
mod common;

use std::time::Duration;

use canopy_core::testing::IoHooks;
use canopy_core::wire::ErrorCode;
use canopy_core::{sizes, LocalFs, Reported, SizesCall};
use common::Tree;

#[test]
fn a_root_that_opens_but_stalls_while_counted_is_a_lower_bound_not_a_failure() {
    let t = Tree::new();
    t.files("slow", "f", 3);
    // Every lstat in the root takes longer than a step may: its own job is
    // given up after the root was opened (a dead entry in it, a mount that
    // holds up its filesystem).
    let hooks = IoHooks {
        slow_folder: Some(b"slow".to_vec()),
        slow_delay: Duration::ZERO,
        slow_stat: Some(Duration::from_millis(400)),
    };
    let r = sizes(
        &LocalFs::new().with_test_hooks(hooks),
        &t.path().join("slow"),
        &SizesCall {
            report: Reported::Depth(0),
            folder_time: Duration::from_millis(150),
            ..SizesCall::default()
        },
        None,
        None,
    )
    .expect("the count answers with what it could count");
    assert!(r.root.sizes.is_lower_bound, "{:?}", r.root.sizes);
    assert_eq!(r.root.sizes.shortfalls[0].code, ErrorCode::Timeout);
}
