"""This workspace's kernel families: each BUILD under kernels/ checks that its name is here."""

FAMILIES = [
    "negate",
    "histogram",
]
