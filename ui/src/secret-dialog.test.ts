import { describe, expect, it } from "vitest";
import { SecretPrompts, type ShowPrompt } from "./view/secret-dialog";

// The dialog itself is driven in the real window (tests/e2e/remote.test.mjs);
// here, which prompt is shown when, and what is answered.

const ask = (id: number, prompt = "Enter passphrase for key '/home/ann/.ssh/id_ed25519':") =>
  ({ type: "askSecret", id, server: "ann@files.example:2222", prompt }) as const;

function prompts() {
  const answers: { id: number; secret: string | null }[] = [];
  const open: { id: number; reply: (s: string | null) => void }[] = [];
  const closed: number[] = [];
  const show: ShowPrompt = (a, reply) => {
    open.push({ id: a.id, reply });
    return () => closed.push(a.id);
  };
  const p = new SecretPrompts(async (id, secret) => {
    answers.push({ id, secret });
  }, show);
  return { p, answers, open, closed };
}

describe("ssh's password prompts", () => {
  it("are shown one at a time, the next once the shown one is answered", () => {
    const { p, answers, open, closed } = prompts();
    expect(p.handle(ask(1))).toBe(true);
    p.handle(ask(2));
    expect(open.map((o) => o.id)).toEqual([1]);
    open[0]!.reply("correct horse");
    open[0]!.reply("again");
    expect(answers).toEqual([{ id: 1, secret: "correct horse" }]);
    expect(closed).toEqual([1]);
    expect(open.map((o) => o.id)).toEqual([1, 2]);
    open[1]!.reply(null);
    expect(answers[1]).toEqual({ id: 2, secret: null });
  });

  it("drop a withdrawn prompt, shown or waiting, without answering it", () => {
    const { p, answers, open, closed } = prompts();
    p.handle(ask(1));
    p.handle(ask(2));
    p.handle(ask(3));
    p.handle({ type: "secretWithdrawn", id: 2 });
    p.handle({ type: "secretWithdrawn", id: 1 });
    expect(closed).toEqual([1]);
    expect(open.map((o) => o.id)).toEqual([1, 3]);
    open[0]!.reply("late");
    expect(answers).toEqual([]);
  });

  it("leave every other event to the window", () => {
    const { p, open } = prompts();
    expect(p.handle({ type: "notice", message: "hi" })).toBe(false);
    expect(p.handle({ type: "foldersChanged", folders: [], overflow: false })).toBe(false);
    expect(open).toEqual([]);
  });

  it("ask a prompt shown again (to a reloaded page) once", () => {
    const { p, answers, open } = prompts();
    p.handle(ask(1));
    p.handle(ask(2));
    p.handle(ask(1));
    p.handle(ask(2));
    expect(open.map((o) => o.id)).toEqual([1]);
    open[0]!.reply("a");
    open[1]!.reply("b");
    expect(open.map((o) => o.id)).toEqual([1, 2]);
    expect(answers).toEqual([
      { id: 1, secret: "a" },
      { id: 2, secret: "b" },
    ]);
  });
});
