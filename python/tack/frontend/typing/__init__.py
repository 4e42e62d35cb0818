"""The type rules of the kernel language: one mixin per subject (arithmetic, logic, memory, tables,
values, warps, mma, async copies), joined in rules.RULES."""
