"""runway_core: the pure analysis of runway.yaml files.

Parsing with positions, the pydantic model, the rules, the catalogue and the planner.
It must never import pygls, lsprotocol, pulumi or pulumi_aws: the language server, the CLI
and the Pulumi program are thin adapters over this package (STYLE.md, "one core").
"""

__all__ = ["__version__"]
__version__ = "0.1.0"
