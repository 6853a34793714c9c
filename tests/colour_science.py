"""Colour science for the tests of the run palette (pure functions, standard library only):
sRGB to CIELAB, the CIEDE2000 colour difference, dichromat simulation and WCAG contrast.

Sources:

* sRGB: IEC 61966-2-1:1999 (transfer function, primaries and D65 white).
* CIELAB: CIE 15:2004, with the D65 white point (Xn, Yn, Zn) = (0.95047, 1, 1.08883).
* CIEDE2000: G. Sharma, W. Wu, E. N. Dalal, "The CIEDE2000 color-difference formula:
  implementation notes, supplementary test data, and mathematical observations", Color
  Research & Application 30(1), 21-30, 2005 (equations 1-17, kL = kC = kH = 1).
* Colour-vision deficiencies: G. M. Machado, M. M. Oliveira, L. A. F. Fernandes, "A
  physiologically-based model for simulation of color vision deficiency", IEEE TVCG 15(6),
  1291-1298, 2009: the severity-1.0 matrices (dichromacy), applied to linear sRGB.
* Contrast: WCAG 2.1, relative luminance and contrast ratio (success criterion 1.4.11 asks
  3:1 for the parts of a graphic needed to understand it, such as a chart's lines).
"""

from __future__ import annotations

import math
from typing import Literal

Lab = tuple[float, float, float]
Rgb = tuple[float, float, float]
Deficiency = Literal["protanopia", "deuteranopia", "tritanopia"]

#: Linear sRGB -> CIE XYZ (IEC 61966-2-1, D65).
_RGB_TO_XYZ = (
    (0.4124, 0.3576, 0.1805),
    (0.2126, 0.7152, 0.0722),
    (0.0193, 0.1192, 0.9505),
)
_WHITE = (0.95047, 1.0, 1.08883)

#: Machado et al. (2009), severity 1.0: linear sRGB -> linear sRGB as the dichromat sees it.
MACHADO_2009: dict[Deficiency, tuple[Rgb, Rgb, Rgb]] = {
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
    "tritanopia": (
        (1.255528, -0.076749, -0.178779),
        (-0.078411, 0.930809, 0.147602),
        (0.004733, 0.691367, 0.303900),
    ),
}


def _apply(matrix: tuple[Rgb, Rgb, Rgb], vector: Rgb) -> Rgb:
    """``matrix @ vector`` for 3 x 3."""
    x, y, z = (sum(m * v for m, v in zip(row, vector, strict=True)) for row in matrix)
    return x, y, z


def srgb_to_linear(channel: float) -> float:
    """IEC 61966-2-1 decoding of one channel in [0, 1]: c / 12.92 for c <= 0.04045, else
    ((c + 0.055) / 1.055) ** 2.4."""
    return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4


def hex_to_linear_rgb(colour: str) -> Rgb:
    """``#rrggbb`` -> linear sRGB in [0, 1]."""
    r, g, b = (srgb_to_linear(int(colour[i : i + 2], 16) / 255) for i in (1, 3, 5))
    return r, g, b


def simulate(rgb: Rgb, deficiency: Deficiency) -> Rgb:
    """Linear sRGB as seen with ``deficiency``: Machado et al. (2009) severity-1.0 matrix,
    clipped to the sRGB gamut (a screen cannot show what falls outside)."""
    x, y, z = (min(1.0, max(0.0, c)) for c in _apply(MACHADO_2009[deficiency], rgb))
    return x, y, z


def linear_rgb_to_lab(rgb: Rgb) -> Lab:
    """Linear sRGB -> CIELAB (D65): L* = 116 f(Y/Yn) - 16, a* = 500 (f(X/Xn) - f(Y/Yn)),
    b* = 200 (f(Y/Yn) - f(Z/Zn)), f(t) = t^(1/3) above (6/29)^3, else t / (3 (6/29)^2) + 4/29
    (CIE 15:2004)."""

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    fx, fy, fz = (f(c / w) for c, w in zip(_apply(_RGB_TO_XYZ, rgb), _WHITE, strict=True))
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def hex_to_lab(colour: str, deficiency: Deficiency | None = None) -> Lab:
    """CIELAB of ``#rrggbb``, as seen with ``deficiency`` when given."""
    rgb = hex_to_linear_rgb(colour)
    return linear_rgb_to_lab(simulate(rgb, deficiency) if deficiency else rgb)


def ciede2000(lab1: Lab, lab2: Lab) -> float:
    """CIEDE2000 colour difference (Sharma, Wu, Dalal 2005; kL = kC = kH = 1):

    * C*ab = sqrt(a*^2 + b*^2) of each, their mean C̄; G = 0.5 (1 - sqrt(C̄^7 / (C̄^7 + 25^7)));
      a' = (1 + G) a*, C' = sqrt(a'^2 + b*^2), h' = atan2(b*, a') in [0, 360) (0 when C' = 0);
    * ΔL' = L2 - L1, ΔC' = C2' - C1', Δh' = h2' - h1' brought into [-180, 180] (0 when a
      chroma is 0), ΔH' = 2 sqrt(C1' C2') sin(Δh' / 2);
    * L̄', C̄' the means; h̄' the mean hue, the short way round (h1' + h2' when a chroma is 0);
      T = 1 - 0.17 cos(h̄' - 30) + 0.24 cos(2 h̄') + 0.32 cos(3 h̄' + 6) - 0.20 cos(4 h̄' - 63);
    * Δθ = 30 exp(-((h̄' - 275) / 25)^2), RC = 2 sqrt(C̄'^7 / (C̄'^7 + 25^7)),
      SL = 1 + 0.015 (L̄' - 50)^2 / sqrt(20 + (L̄' - 50)^2), SC = 1 + 0.045 C̄',
      SH = 1 + 0.015 C̄' T, RT = -sin(2 Δθ) RC;
    * ΔE00 = sqrt((ΔL'/SL)^2 + (ΔC'/SC)^2 + (ΔH'/SH)^2 + RT (ΔC'/SC) (ΔH'/SH))."""
    (l1, a1, b1), (l2, a2, b2) = lab1, lab2
    c_bar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_bar**7 / (c_bar**7 + 25**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0

    delta_l = l2 - l1
    delta_c = c2p - c1p
    if c1p * c2p == 0:
        delta_h_angle = 0.0
    else:
        delta_h_angle = h2p - h1p
        if delta_h_angle > 180:
            delta_h_angle -= 360
        elif delta_h_angle < -180:
            delta_h_angle += 360
    delta_h = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(delta_h_angle) / 2)

    l_bar = (l1 + l2) / 2
    cp_bar = (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_bar = (h1p + h2p) / 2
    elif h1p + h2p < 360:
        h_bar = (h1p + h2p + 360) / 2
    else:
        h_bar = (h1p + h2p - 360) / 2
    t = (
        1
        - 0.17 * math.cos(math.radians(h_bar - 30))
        + 0.24 * math.cos(math.radians(2 * h_bar))
        + 0.32 * math.cos(math.radians(3 * h_bar + 6))
        - 0.20 * math.cos(math.radians(4 * h_bar - 63))
    )
    delta_theta = 30 * math.exp(-(((h_bar - 275) / 25) ** 2))
    r_c = 2 * math.sqrt(cp_bar**7 / (cp_bar**7 + 25**7))
    s_l = 1 + 0.015 * (l_bar - 50) ** 2 / math.sqrt(20 + (l_bar - 50) ** 2)
    s_c = 1 + 0.045 * cp_bar
    s_h = 1 + 0.015 * cp_bar * t
    r_t = -math.sin(math.radians(2 * delta_theta)) * r_c
    return math.sqrt(
        (delta_l / s_l) ** 2
        + (delta_c / s_c) ** 2
        + (delta_h / s_h) ** 2
        + r_t * (delta_c / s_c) * (delta_h / s_h)
    )


def relative_luminance(colour: str) -> float:
    """WCAG 2.1 relative luminance of ``#rrggbb``: 0.2126 R + 0.7152 G + 0.0722 B (linear)."""
    r, g, b = hex_to_linear_rgb(colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(colour: str, background: str) -> float:
    """WCAG 2.1 contrast ratio (L_lighter + 0.05) / (L_darker + 0.05), from 1 to 21."""
    lighter, darker = sorted(
        (relative_luminance(colour), relative_luminance(background)), reverse=True
    )
    return (lighter + 0.05) / (darker + 0.05)
