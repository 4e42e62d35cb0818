"""The error function in Tack's kernel language (the builtins have no `erf`), for the exact
GELU. The algorithm and coefficients are fdlibm's `s_erf.c` (Sun Microsystems, 1993; the
rational approximations on [0, 0.84375), [0.84375, 1.25), [1.25, 1/0.35) and [1/0.35, 6)),
https://github.com/JuliaMath/openlibm/blob/master/src/s_erf.c. fdlibm states an error below
1 ulp in double precision; here the tail's exp(-x*x - 0.5625 + R/S) is taken in one piece
instead of fdlibm's split of x*x into high and low words, which costs a few ulp at most (the
tests hold erf to 4e-16 absolute in float64; float32 arguments compute in float32). `erf_f32`
is the same with `tack.lib.expf.exp_f32` for the exp, for the CPU's float32 kernels."""
import math

from ..frontend.inline import func
from ..intrinsics import select
from ..lib.expf import exp_f32


@func
def _small(x):  # |x| < 0.84375: erf(x) = x + x * P(x^2) / Q(x^2)
    z = x * x
    r = 1.28379167095512558561e-01 + z * (-3.25042107247001499370e-01 + z * (
        -2.84817495755985104766e-02 + z * (-5.77027029648944159157e-03
                                           + z * -2.37630166566501626084e-05)))
    s = 1.0 + z * (3.97917223959155352819e-01 + z * (6.50222499887672944485e-02 + z * (
        5.08130628187576562776e-03 + z * (1.32494738004321644526e-04
                                          + z * -3.96022827877536812320e-06))))
    return x + x * (r / s)


@func
def _mid(a):  # 0.84375 <= |x| < 1.25: erf(|x|) = erx + P(s) / Q(s), s = |x| - 1
    s = a - 1.0
    p = -2.36211856075265944077e-03 + s * (4.14856118683748331666e-01 + s * (
        -3.72207876035701323847e-01 + s * (3.18346619901161753674e-01 + s * (
            -1.10894694282396677476e-01 + s * (3.54783043256182359371e-02
                                               + s * -2.16637559486879084300e-03)))))
    q = 1.0 + s * (1.06420880400844228286e-01 + s * (5.40397917702171048937e-01 + s * (
        7.18286544141962662868e-02 + s * (1.26171219808761642112e-01 + s * (
            1.36370839120290507362e-02 + s * 1.19844998467991074170e-02)))))
    return 8.45062911510467529297e-01 + p / q


@func
def _tail_ra(s):  # 1.25 <= |x| < 1/0.35, s = 1/x^2
    r = -9.86494403484714822705e-03 + s * (-6.93858572707181764372e-01 + s * (
        -1.05586262253232909814e+01 + s * (-6.23753324503260060396e+01 + s * (
            -1.62396669462573470355e+02 + s * (-1.84605092906711035994e+02 + s * (
                -8.12874355063065934246e+01 + s * -9.81432934416914548592e+00))))))
    q = 1.0 + s * (1.96512716674392571292e+01 + s * (1.37657754143519042600e+02 + s * (
        4.34565877475229228821e+02 + s * (6.45387271733267880336e+02 + s * (
            4.29008140027567833386e+02 + s * (1.08635005541779435134e+02 + s * (
                6.57024977031928170135e+00 + s * -6.04244152148580987438e-02)))))))
    return r / q


@func
def _tail_rb(s):  # 1/0.35 <= |x| < 6
    r = -9.86494292470009928597e-03 + s * (-7.99283237680523006574e-01 + s * (
        -1.77579549177547519889e+01 + s * (-1.60636384855821916062e+02 + s * (
            -6.37566443368389627722e+02 + s * (-1.02509513161107724954e+03
                                               + s * -4.83519191608651397019e+02)))))
    q = 1.0 + s * (3.03380607434824582924e+01 + s * (3.25792512996573918826e+02 + s * (
        1.53672958608443695994e+03 + s * (3.19985821950859553908e+03 + s * (
            2.55305040643316442583e+03 + s * (4.74528541206955367215e+02
                                              + s * -2.24409524465858183362e+01))))))
    return r / q


def _erf_with(expf):
    """erf with `expf` for the tail's exp (the builtin, or tack.lib.expf.exp_f32)."""

    @func
    def erf(x):
        """erf(x) in the precision of x; odd, so the tail is computed on |x|."""
        a = abs(x)
        out = _small(x)
        if a >= 0.84375:
            out = copysign(_mid(a), x)  # noqa: F821 - a kernel builtin
        if a >= 1.25:
            s = 1.0 / (a * a)
            r = select(a < 2.857142857142857, _tail_ra(s), _tail_rb(s))
            e = expf(-a * a - 0.5625 + r) / a  # erfc(|x|)
            out = copysign(select(a < 6.0, 1.0 - e, 1.0), x)  # noqa: F821
        return out
    return erf


erf = _erf_with(math.exp)
erf_f32 = _erf_with(exp_f32)  # float32 on the CPU: an exp that vectorizes
