import { describe, expect, it } from "vitest";
import type { Revealed } from "./bindings/Revealed";
import type { RevealRequest } from "./bindings/RevealRequest";
import { openController } from "./controller-fixture";
import { FakeBackend, fileNodes, type FakeNode } from "./fake-backend";
import { revealEntry } from "./reveal";
import { findNode } from "./tree-state";

const tree = (): FakeNode => ({
  name: "r",
  kind: "folder",
  children: [
    { name: "big", kind: "folder", children: fileNodes("f", 250) },
    { name: "nest", kind: "folder", children: [{ name: "inner", kind: "folder", children: [{ name: "deep", kind: "folder", children: [{ name: "target", kind: "file" }] }] }] },
  ],
});

/** The engine's answer for the fake tree: each folder's position of the next step (names in the order given). */
function way(target: string): Revealed {
  const parts = target.slice("/r/".length).split("/");
  let node = tree();
  let folder = "/r";
  const steps = parts.map((name) => {
    const index = node.children!.findIndex((c) => c.name === name);
    const step = { folder, entry: `${folder}/${name}`, index, total: node.children!.length };
    node = node.children![index]!;
    folder = step.entry;
    return step;
  });
  return { steps };
}

describe("reveal", () => {
  it("a hit past its folder's cap is loaded by a sub-query at its place, selected", async () => {
    const { c, state } = await openController(new FakeBackend(tree()));
    expect(findNode(state(), "/r/big/f0201")).toBeNull();
    const asked: RevealRequest[] = [];
    const why = await revealEntry({ revealPath: async (r) => (asked.push(r), way(r.target)) }, c, "/r/big/f0201");
    expect(why).toBeNull();
    expect(asked[0]!.root).toBe("/r");
    expect(state().selected).toBe("/r/big/f0201");
    expect(findNode(state(), "/r/big/f0201")).not.toBeNull();
  });

  it("each folder on the way down is expanded and read", async () => {
    const { c, state } = await openController(new FakeBackend(tree()));
    expect(await revealEntry({ revealPath: async (r) => way(r.target) }, c, "/r/nest/inner/deep/target")).toBeNull();
    for (const f of ["/r/nest", "/r/nest/inner", "/r/nest/inner/deep"]) expect(findNode(state(), f)!.node.expanded).toBe(true);
    expect(state().selected).toBe("/r/nest/inner/deep/target");
  });

  it("says why when the engine cannot find the way", async () => {
    const { c, state } = await openController(new FakeBackend(tree()));
    const why = await revealEntry({ revealPath: async () => Promise.reject({ code: "NOT_FOUND", message: "it went" }) }, c, "/r/big/f0201");
    expect(why).toMatch(/NOT_FOUND: it went/);
    expect(state().selected).not.toBe("/r/big/f0201");
  });
});
