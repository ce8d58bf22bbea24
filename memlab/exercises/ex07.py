"""Exercises of 07_poison: trust a source, then choose the status of a new memory."""

from __future__ import annotations

from memlab.check import register

UNTRUSTED = ("web_clip", "email", "file", "tool_output")


def write_status(role: str, attachment_kind: str | None, outward_action: bool) -> str:
    """The status a new memory gets: from the user's own message or not (`role`, and the
    kind of attachment it came from, None if none), and whether it asks for an outward
    action (send, share, pay)."""
    trusted = role == "user" and attachment_kind is None
    if not trusted:
        return "quarantined"
    return "pending_confirmation" if outward_action else "active"


register("07.1", write_status,
         cases=[("user", None, False), ("user", None, True), ("user", "web_clip", True),
                ("user", "email", False), ("tool", None, True), ("user", "file", False),
                ("tool", None, False), ("user", "tool_output", True)],
         hint="先問來源:只有使用者親口說的(role 是 user、而且不是附件)才可信,其他一律 quarantined;"
              "可信的再問:會不會讓助理對外寄送、分享、付款?會就 pending_confirmation,否則 active。")
