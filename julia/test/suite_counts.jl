# The counts of the suite's summary lines: the tests skipped, by reason (`skip_test`), and the
# totals from `Test.get_test_counts(testset)` in whatever form the running Julia returns: an
# 8-tuple (passes, fails, errors, broken, then the same of the child test sets) before Julia 1.11,
# and from 1.11 on a `Test.TestCounts` struct, whose fields are `passes`, `fails`, `errors`,
# `broken` and `cumulative_passes` ... `cumulative_broken`
# (https://github.com/JuliaLang/julia/blob/release-1.11/stdlib/Test/src/Test.jl).
# Included by runtests.jl; tests/julia/test_julia153_runtests.py checks both forms.

"""How many tests were skipped for each reason; runtests.jl prints them (`TACK_JULIA_SKIP`)."""
const SKIP_REASONS = Dict{String,Int}()

"""Record one skipped test (`@test_skip`) and why."""
function skip_test(reason::AbstractString)
    SKIP_REASONS[reason] = get(SKIP_REASONS, reason, 0) + 1
    @test_skip reason
    return nothing
end

"""`(passed, failed, errored, skipped)` of a test set, its children included, from the value of
`Test.get_test_counts` (a tuple before Julia 1.11, a `TestCounts` from 1.11; skipped is broken:
`@test_skip` and `@test_broken`)."""
function suite_counts(c::Tuple)
    return (passed = c[1] + c[5], failed = c[2] + c[6], errored = c[3] + c[7],
            skipped = c[4] + c[8])
end
function suite_counts(c)
    return (passed = c.passes + c.cumulative_passes, failed = c.fails + c.cumulative_fails,
            errored = c.errors + c.cumulative_errors, skipped = c.broken + c.cumulative_broken)
end
