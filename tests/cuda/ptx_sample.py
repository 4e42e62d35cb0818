"""A hand-written PTX module of two entries, for the tests of what Tack does to PTX text (the
register budget, the driver's link inputs) without a GPU."""

PTX = """.version 7.8
.target sm_90
.address_size 64

.visible .entry other(
\t.param .u64 other_param_0
)
{
\tret;
}

.visible .entry tack_k(
\t.param .u64 .ptr .global .align 1 tack_k_param_0,
\t.param .u64 tack_k_param_1
)
{
\t.reg .b32 \t%r<3>;
\tret;
}
"""
