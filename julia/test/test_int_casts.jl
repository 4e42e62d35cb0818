# tack_int_casts(a, o8, ou8, o64, ou64, of): integer casts wrap, and widen by the source's
# signedness (i8 -> u64 sign-extends, u8 -> i64 zero-extends).
include(joinpath(KERNEL_DIR, "int_casts.jl"))

function test_int_casts(b)
    @testset "int_casts n=$n" for n in (1, 7, 1025)
        a = rand(test_rng(n), Int32(-70000):Int32(69999), n)
        o8, ou8, o64 = zeros(Int8, n), zeros(UInt8, n), zeros(Int64, n)
        ou64, of = zeros(UInt64, n), zeros(Float32, n)
        run!(tack_int_casts, b, n, a, o8, ou8, o64, ou64, of)
        low8 = mod.(Int.(a), 256)                       # the low byte, 0..255
        @test o8 == Int8.(low8 .- 256 .* (low8 .>= 128))
        @test ou8 == UInt8.(low8)
        @test o64 == Int64.(low8)
        @test ou64 == reinterpret.(UInt64, Int64.(low8 .- 256 .* (low8 .>= 128)))
        @test allclose(of, Float64.(Float32.(a)) ./ 3; rtol = 1e-6)
    end
end
