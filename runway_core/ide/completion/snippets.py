"""Snippets for a new resource, workload and environment, with their required keys."""

from __future__ import annotations

from ...catalog import SIZES
from ...kinds import RESOURCE_KINDS
from ...model import DEFAULT_CAPS, DEFAULT_ENVIRONMENTS, EXPOSE_VALUES, REASON_GROUNDS
from ._writer import _esc, _Writer


class _Snippets(_Writer):
    def resource_snippet(self) -> None:
        if self.ctx.flow or self.ctx.colon_follows:
            return
        ci = " " * (self.ctx.indent + self.step)
        name = self._name()
        plain = f"{name}:\n{ci}kind: postgres\n{ci}size: small"
        snippet = f"${{1:{_esc(name)}}}:\n{ci}kind: ${{2|{','.join(RESOURCE_KINDS)}|}}\n{ci}size: ${{3|{','.join(SIZES)}|}}"
        doc = "A new managed resource: its name (a DNS label), `kind` and `size` (one size for every environment, or a map `{environment: size}`)."
        self.add("new resource", "snippet", plain, snippet=snippet, detail="name, kind and size", documentation=doc, sort="0", filter_text=self.ctx.word or "new resource", volatile=bool(self.ctx.word))

    def workload_snippet(self) -> None:
        if self.ctx.flow or self.ctx.colon_follows:
            return
        c1 = " " * (self.ctx.indent + self.step)
        c2 = " " * (self.ctx.indent + 2 * self.step)
        name = self._name()
        grounds = ",".join(REASON_GROUNDS)
        plain = (
            f"{name}:\n{c1}image: registry/image@sha256:<64 hex digits>\n{c1}port: 8080\n{c1}health:\n{c2}path: /health\n"
            f"{c1}expose: internal\n{c1}reason: \"{REASON_GROUNDS[0]}: why no managed resource fits\""
        )
        snippet = (
            f"${{1:{_esc(name)}}}:\n{c1}image: ${{2:registry/image}}@sha256:${{3:<64 hex digits>}}\n{c1}port: ${{4:8080}}\n"
            f"{c1}health:\n{c2}path: ${{5:/health}}\n{c1}expose: ${{6|{','.join(EXPOSE_VALUES)}|}}\n"
            f"{c1}reason: \"${{7|{grounds}|}}: ${{8:why no managed resource fits}}\""
        )
        doc = (
            "A new container workload with every required key: `image` pinned by digest (`name@sha256:<64 hex digits>`), "
            "`port`, an HTTP `health` path, `expose` and a `reason` on one of the three grounds "
            f"({', '.join(f'`{g}`' for g in REASON_GROUNDS)})."
        )
        self.add("new workload", "snippet", plain, snippet=snippet, detail="image, port, health, expose, reason", documentation=doc, sort="0", filter_text=self.ctx.word or "new workload", volatile=bool(self.ctx.word))

    def environment_snippets(self) -> None:
        ctx = self.ctx
        if ctx.flow:
            return
        c1 = " " * (ctx.indent + self.step)
        c2 = " " * (ctx.indent + 2 * self.step)
        note = "Declaring `environments` replaces the defaults (dev, staging, production): list every environment you deploy."
        if not ctx.colon_follows:
            name = self._name()
            plain = f"{name}:\n{c1}limits:\n{c2}monthly: 150"
            snippet = f"${{1:{_esc(name)}}}:\n{c1}limits:\n{c2}monthly: ${{2:150}}"
            doc = f"A new environment with its monthly cap (USD per month; a plan over it is refused).\n\n{note}"
            self.add("new environment", "snippet", plain, snippet=snippet, detail="name and limits.monthly", documentation=doc, sort="0", filter_text=ctx.word or "new environment", volatile=bool(ctx.word))
        for i, env in enumerate(DEFAULT_ENVIRONMENTS):
            if env in ctx.present:
                continue
            cap = DEFAULT_CAPS.get(env)
            cap_text = str(cap) if cap is not None else "null"
            if ctx.colon_follows:
                self.add(env, "environment", env, detail="environment", sort=f"1{i}")
                continue
            plain = f"{env}:\n{c1}limits:\n{c2}monthly: {cap_text}"
            snippet = f"{env}:\n{c1}limits:\n{c2}monthly: ${{1:{cap_text}}}"
            why = f"default cap ${cap}/month" if cap is not None else "no cap until you set one (`null`)"
            doc = f"**{env}** with its monthly cap: {why}.\n\n{note}"
            self.add(env, "environment", plain, snippet=snippet, detail=f"limits.monthly: {cap_text}", documentation=doc, sort=f"1{i}")
