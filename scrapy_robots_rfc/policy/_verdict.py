"""The one "why" of a verdict: what the middleware logs for a forbidden
request, what ``check`` prints per URL and what ``scrapy robots`` shows.

Pure: no Scrapy import. A :class:`Verdict` is rendered in one place:
``str(verdict)`` for people, :meth:`Verdict.as_dict` for JSON (docs/how-it-works.rst,
"Outcomes").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ._policy import State

if TYPE_CHECKING:
    from ..robotstxt import AgentRules, Explanation, Rule

#: The reason of every verdict of an origin without rules (a 4xx, a refused
#: or given-up fetch): no rule is looked at (RFC 9309 §2.3.1.2, §2.3.1.3).
ALLOWS_EVERYTHING = "robots.txt allows everything"


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether a URL is allowed for a crawler, and why.

    >>> from scrapy_robots_rfc import RobotsTxt
    >>> robots = RobotsTxt.parse(b"User-agent: *\\nDisallow: /private\\n")
    >>> print(Verdict.explained(robots.explain("https://a.test/private/x", "ExampleBot")))
    disallowed by "disallow: /private (line 2)" in the group for '*'
    >>> print(Verdict.of_state("https://a.test/x", "ExampleBot", State.UNREACHABLE, "HTTP 503"))
    disallowed: robots.txt unreachable: HTTP 503
    """

    allowed: bool
    url: str
    #: The crawler's name the verdict is for (D-21: reduced to a product name in rfc mode).
    token: str
    #: Why, without the verdict word: a rule's verdict is said by
    #: :attr:`rule` and :attr:`group`, so this is the longer explanation.
    why: str
    #: The deciding rule (RFC 9309 §2.2.2: the longest match), if any.
    rule: Rule | None = None
    #: The ``user-agent`` values of the groups that apply (GRP-4, GRP-5).
    group: tuple[str, ...] = ()
    #: The URL as the rules see it (URL-1..4).
    match_string: str | None = None
    #: What the robots.txt fetch found (:class:`~.policy.State`), and its
    #: outcome, "200", "404: no robots.txt: allow all", "HTTP 503"...
    state: State | None = None
    outcome: str | None = None
    #: Where the rules came from (a file, or the robots.txt URL), and the
    #: status of its last response.
    source: str | None = None
    status: int | None = None

    @classmethod
    def explained(
        cls,
        explanation: Explanation,
        *,
        outcome: str | None = None,
        source: str | None = None,
        status: int | None = None,
    ) -> Verdict:
        """The verdict :meth:`RobotsTxt.explain` found, for rules in force."""
        return cls(
            allowed=explanation.allowed,
            url=explanation.url,
            token=explanation.user_agent,
            why=explanation.reason,
            rule=explanation.rule,
            group=explanation.agents,
            match_string=explanation.match_string,
            state=State.RULES,
            outcome=outcome,
            source=source,
            status=status,
        )

    @classmethod
    def of_rules(
        cls,
        url: str,
        token: str,
        rules: AgentRules,
        match_string: str,
        *,
        state: State = State.RULES,
        source: str,
    ) -> Verdict:
        """The verdict of the group the middleware keeps (``rules``) for
        ``match_string``, with the rule that decides it (RFC 9309 §2.2.2)."""
        rule, why = rules.explain(match_string)
        return cls(
            allowed=rule is None or rule.allow,
            url=url,
            token=token,
            why=why,
            rule=rule,
            group=rules.agents,
            match_string=match_string,
            state=state,
            source=source,
        )

    @classmethod
    def of_state(
        cls,
        url: str,
        token: str,
        state: State,
        outcome: str,
        *,
        note: str = "",
        source: str | None = None,
        status: int | None = None,
    ) -> Verdict:
        """The verdict of an origin whose robots.txt has no rules in force:
        allow all, or disallow all while unreachable (RFC 9309 §2.3.1)."""
        allowed = state in (State.ALLOW_ALL, State.REFUSED)
        why = ALLOWS_EVERYTHING if allowed else f"robots.txt unreachable: {outcome}"
        return cls(
            allowed=allowed,
            url=url,
            token=token,
            why=f"{why} ({note})" if note else why,
            state=state,
            outcome=outcome,
            source=source,
            status=status,
        )

    @property
    def word(self) -> str:
        return "allowed" if self.allowed else "disallowed"

    def __str__(self) -> str:
        if self.rule is not None:
            group = ", ".join(repr(agent) for agent in self.group)
            return f'{self.word} by "{self.rule}" in the group for {group}'
        return f"{self.word}: {self.why}"

    def as_dict(self) -> dict[str, Any]:
        """The ``verdict`` object of ``check --json`` and ``scrapy robots
        --json`` (:mod:`.schemas`): the URL, the crawler's name and what the
        fetch found are their own members there."""
        rule = self.rule
        return {
            "allowed": self.allowed,
            "rule": None
            if rule is None
            else {"allow": rule.allow, "pattern": rule.pattern, "line": rule.line},
            "group": list(self.group),
            "match_string": self.match_string,
            "reason": str(self),
            "why": self.why,
        }
