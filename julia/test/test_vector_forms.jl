# tack_vector_forms(img, v, m, out, outv, scale, __start0, __start1, __ext1): `h, w = img.shape`
# then `for r, c in tack.ndrange(h, w)` over a C-order (7, 9) image (compiled in), a `tack.vec3`
# array v (C-order (9, 3)) and a `tack.mat2` array m (C-order (9, 2, 2)). x, y, z unpack the
# vector (a, 2a, 3a) a @tack.func returns for a = img[r, c], and p, q, s unpack v[c]:
# out = x + 10y + 100z + p + q + s + scale e, with e = m[c][0, 1] + m[c][r % 2, c % 2] +
# ROT90[0, 1] + ROT90[c % 2, r % 2] (ROT90 = [0 -1; 1 0]); outv = (v[c] if a > 0 else 0) +
# (-1 if a < 0.5 else scale v[c]), a scalar arm repeated per component.
include(joinpath(KERNEL_DIR, "vector_forms.jl"))

function test_vector_forms(b)
    @testset "vector_forms" begin
        rng = test_rng(7)
        img = randn(rng, Float32, 9, 7)                   # img[c+1, r+1] is img[r, c]
        V = randn(rng, Float32, 3, 9)                     # V[k+1, c+1] is v[c][k]
        M = randn(rng, Float32, 2, 2, 9)                  # M[col+1, row+1, c+1] is m[c][row, col]
        out, outv = zeros(Float32, 9, 7), zeros(Float32, 3, 9, 7)
        run!(tack_vector_forms, b, 7 * 9, vec(img), vec(V), vec(M), vec(out), vec(outv),
             0.5f0, Int64(0), Int64(0), Int64(9))
        rot = [0.0 -1.0; 1.0 0.0]
        ref, refv = zeros(9, 7), zeros(3, 9, 7)
        for r in 0:6, c in 0:8
            a = Float64(img[c+1, r+1])
            vc = Float64.(V[:, c+1])
            mm(row, col) = Float64(M[col+1, row+1, c+1])
            e = mm(0, 1) + mm(r % 2, c % 2) + rot[1, 2] + rot[c % 2 + 1, r % 2 + 1]
            ref[c+1, r+1] = 321a + sum(vc) + 0.5e
            refv[:, c+1, r+1] = (a > 0 ? vc : zeros(3)) .+ (a < 0.5 ? fill(-1.0, 3) : 0.5 .* vc)
        end
        @test allclose(out, ref; rtol = 1e-5, atol = 1e-5)
        @test allclose(outv, refv; rtol = 1e-5, atol = 1e-5)
    end
end
