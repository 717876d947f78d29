//! The `list_roots` tool: the folders an agent may use in this session,
//! and how they came about (the server's `--root` folders, narrowed by the
//! client's roots, or the `--root` folders because the client's could not
//! be used).
//!
//! Its arguments, its structured result, what it tells a model and its call.

use rmcp::model::{CallToolResult, JsonObject};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, RoleServer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use canopy_core::CanopyError;

use crate::engine;
use crate::server::{input_schema, parse, Canopy};

/// What `list_roots` tells a model. Kept under 2 KB (a test checks).
pub fn description() -> String {
    "The folders this session may read, one `[ROOT] path` line each (a relative path is taken from the first), then whether the client's roots narrowed the server's, or why they could not be used (`[FALLBACK] ...`).".into()
}

/// The numbers `list_roots`' texts state (see [`super::Numbers`]).
#[cfg(test)]
pub(crate) const NUMBERS: super::Numbers = super::Numbers {
    constants: &[],
    examples: &[],
};

/// `list_roots` takes no arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListRootsArgs {}

/// `list_roots`' structured result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListRootsOutput {
    /// The folders this session may read, escaped as names are printed.
    pub roots: Vec<String>,
    /// The client's roots narrowed the server's folders.
    pub narrowed_by_client: bool,
    /// Why the client's roots could not be used (the server's folders apply).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
}

impl Canopy {
    async fn list_roots_call(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> Result<(String, ListRootsOutput), CanopyError> {
        let _: ListRootsArgs = parse("list_roots", args)?;
        let state = self.roots_state(&ctx).await?;
        let roots: Vec<String> = state
            .allowed
            .iter()
            .map(|r| engine::shown_path(r))
            .collect();
        let mut text: String = roots.iter().map(|r| format!("[ROOT] {r}\n")).collect();
        if roots.is_empty() {
            text.push_str("(none: the client's roots and the server's folders do not overlap)\n");
        }
        match (&state.fallback, &state.client) {
            (Some(why), _) => text.push_str(&format!("[FALLBACK] {why}\n")),
            (None, Some(_)) => text.push_str("The client's roots narrowed the server's folders.\n"),
            (None, None) => text.push_str("The server's folders (the client offers no roots).\n"),
        }
        let out = ListRootsOutput {
            roots,
            narrowed_by_client: state.fallback.is_none() && state.client.is_some(),
            fallback: state.fallback,
        };
        Ok((text, out))
    }
}

#[tool_router(router = list_roots_router, vis = "pub(crate)")]
impl Canopy {
    #[tool(
        name = "list_roots",
        title = "Allowed folders",
        description = description(),
        input_schema = input_schema::<ListRootsArgs>(),
        annotations(title = "Allowed folders", read_only_hint = true, destructive_hint = false, open_world_hint = false)
    )]
    async fn list_roots(
        &self,
        args: JsonObject,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let outcome = self.list_roots_call(args, ctx.clone()).await;
        self.finish_noted("list_roots", &ctx, outcome).await
    }
}
