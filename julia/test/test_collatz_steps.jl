# tack_collatz_steps(start, steps): Collatz steps to reach 1, capped at 500 (while + break).
include(joinpath(KERNEL_DIR, "collatz_steps.jl"))

function collatz(v)
    k = 0
    while v != 1 && k < 500
        v = iseven(v) ? v ÷ 2 : 3v + 1
        k += 1
    end
    return k
end

function test_collatz_steps(b)
    @testset "collatz_steps n=$n" for n in (1, 7, 1025)
        start = rand(test_rng(n), Int64(1):Int64(9999), n)
        steps = zeros(Int32, n)
        run!(tack_collatz_steps, b, n, start, steps)
        @test steps == Int32.(collatz.(start))
    end
end
