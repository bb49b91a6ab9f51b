"""Default catalogue data (sizes.toml, prices.csv), shipped in the wheel; no code."""
