# tack_texture_sample(coords, out, outf, tex__data): a `tack.texture3d` of W×H×D = 5×4×3 texels
# passed as an object: the kernel receives its snapshot `data` (texel (i, j, k) at
# (k H + j) W + i, i.e. a Julia array of size (W, H, D)), its extents are compiled in.
# out[i] samples at coords[i] = (u, v, w), outf[i] (through a `@tack.func`) at (w, u, v):
# trilinear, clamped to the edge, texel centres at 0 and 1.
include(joinpath(KERNEL_DIR, "texture_sample.jl"))

function texture_sample_ref(vol, u, v, w)
    dims = size(vol)
    ax = map((u, v, w), dims) do c, m
        x = clamp(Float64(c), 0.0, 1.0) * (m - 1)
        i0 = min(floor(Int, x), m - 1)
        (i0 + 1, min(i0 + 1, m - 1) + 1, x - i0)    # 1-based neighbours and the fraction
    end
    i0, i1, fx = ax[1]
    j0, j1, fy = ax[2]
    k0, k1, fz = ax[3]
    acc = 0.0
    for (k, wz) in ((k0, 1 - fz), (k1, fz))
        for (j, wy) in ((j0, 1 - fy), (j1, fy)), (i, wx) in ((i0, 1 - fx), (i1, fx))
            acc += wz * wy * wx * Float64(vol[i, j, k])
        end
    end
    return acc
end

function test_texture_sample(b)
    @testset "texture_sample n=$n" for n in (1, 7, 513)
        rng = test_rng(n)
        vol = randn(rng, Float32, 5, 4, 3)
        coords = -0.25f0 .+ 1.5f0 .* rand(rng, Float32, 3, n)   # outside [0, 1] too
        out, outf = zeros(Float32, n), zeros(Float32, n)
        run!(tack_texture_sample, b, n, vec(coords), out, outf, vec(vol))
        c = coords
        @test allclose(out, [texture_sample_ref(vol, c[1, i], c[2, i], c[3, i]) for i in 1:n];
                       rtol = 1e-5, atol = 1e-5)
        @test allclose(outf, [texture_sample_ref(vol, c[3, i], c[1, i], c[2, i]) for i in 1:n];
                       rtol = 1e-5, atol = 1e-5)
    end
    # at texel centres the texture returns the texels themselves
    vol = reshape(Float32.(1:60), 5, 4, 3)
    out, outf = zeros(Float32, 2), zeros(Float32, 2)
    run!(tack_texture_sample, b, 2, Float32[0, 0, 0, 1, 1, 1], out, outf, vec(vol))
    @test out == Float32[1, 60] && outf == Float32[1, 60]
end
