# tack_math_domain(x, out): math outside its real domain gives NaN as in C, never Julia's
# DomainError; out is C-order (n, 10).
include(joinpath(KERNEL_DIR, "math_domain.jl"))

# C99 pow (Annex F) for the cases used here: y = 0.5 and y = 3.
oddint(y) = isinteger(y) && rem(y, 2) != 0   # `isodd` takes floats only from Julia 1.7 on
cpow(x, y) = x == -Inf ? (oddint(y) ? -Inf : Inf) :
             x < 0 ? (isinteger(y) ? (oddint(y) ? -(abs(x)^y) : abs(x)^y) : NaN) : x^y

function domain_ref(v::Float64)
    inside(ok, f) = ok ? f(v) : NaN
    return [inside(v >= 0, sqrt), inside(v >= 0, log), inside(v >= 0, log2),
            inside(v >= 0, log10), inside(abs(v) <= 1, asin), inside(abs(v) <= 1, acos),
            inside(isfinite(v), sin), inside(isfinite(v), cos), cpow(v, 0.5), cpow(v, 3.0)]
end

function test_math_domain(b)
    @testset "math_domain n=$n" for n in (10, 11, 100)
        special = Float32[-2, -0.5, 0, 0.5, 2, Inf, -Inf, NaN, -1, 1]
        x = vcat(special, 6 .* rand(test_rng(n), Float32, n - 10) .- 3)
        O = zeros(Float32, 10, n)
        run!(tack_math_domain, b, n, x, vec(O))
        ref = reduce(hcat, [domain_ref(Float64(v)) for v in x])
        @test allclose(O, ref; rtol = 2e-6, atol = 2e-6)
    end
end
