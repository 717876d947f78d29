//! CPU work through the real binary (issue 29, section 1): a hostile
//! archive or a costly search pattern costs its own call, and the next
//! call is served. Only a call blocked in the kernel makes a place "not
//! responding"; the hostile inputs are made in code (`hostile`).

use crate::{common, hostile};

use common::{list_args, path_arg, Reply, Server, Tree};
use serde_json::json;

#[tokio::test]
async fn after_eight_hostile_zips_a_benign_folder_is_still_served() {
    let t = Tree::new();
    // Each would take seconds and hundreds of MiB to index whole.
    for i in 0..8 {
        hostile::deep_names_zip(&t.at(format!("z{i}.zip")), 200, hostile::ZIP_NAME_MAX);
    }
    t.write("benign/readme.txt", b"hello");
    let s = Server::start(&[&t.path()]).await;
    let mut replies = Vec::new();
    for i in 0..8 {
        replies.push(s.list(list_args(&t.at(format!("z{i}.zip")))).await);
    }
    let r = s.list(list_args(&t.at("benign"))).await.ok();
    assert!(
        r.text.contains("readme.txt"),
        "a folder beside them answers: {}",
        r.text
    );
    for (i, r) in replies.into_iter().enumerate() {
        let r = r.ok();
        assert!(
            r.text.contains("[TOO_LARGE]"),
            "z{i}.zip is listed in part, saying why: {}",
            r.text
        );
    }
}

#[tokio::test]
async fn a_costly_search_answers_and_the_next_call_in_its_root_is_served() {
    let t = Tree::new();
    hostile::lines_of_a(&t.at("costly.txt"), 2 << 20, 5_000);
    let s = Server::start(&[&t.path()]).await;
    let r = Reply::of(
        s.call(
            "search",
            json!({ "path": path_arg(&t.path()), "content": hostile::COSTLY_PATTERN }),
        )
        .await,
    )
    .ok();
    assert!(
        r.text.contains("[TIMEOUT] costly.txt") || r.text.contains("[BUDGET]"),
        "the search says the file was not searched whole: {}",
        r.text
    );
    let r = s.list(list_args(&t.path())).await.ok();
    assert!(
        r.text.contains("costly.txt"),
        "the root answers the next call: {}",
        r.text
    );
}
