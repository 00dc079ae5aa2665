"""The fixed corpus of test_cocoeval.py (invented food captions in the style of Food-500 Cap; one reference
per image, as in Food-500 Cap, plus one item with two references). Not a test module."""

REFS = {
    "Abalone/Abalone_0081.jpg": ["Freshly cleaned abalones with shells placed on the crushed ice on a white plate."],
    "Agedashi_tofu/Agedashi_tofu_0001.jpg": [
        "Five pieces of golden agedashi tofu with some scallions, carrot strips and wooden fish flowers in a long "
        "white plate."
    ],
    "Chicken_and_waffles/Chicken_and_waffles_0089.jpg": [
        "freshly made chicken and waffles with crispy deep-fried chicken and a light and crunchy waffle, together "
        "with dense cream in the middle"
    ],
    "Çiğ_köfte/Çiğ_köfte_0003.jpg": [
        "Çiğ köfte (raw meatballs) wrapped in lettuce leaves, served with lemon wedges on a wooden board."
    ],
    "Dong'an_chicken/Dong'an_chicken_0010.jpg": [
        "A plate of Dong'an chicken with shredded ginger and red peppers; it's spicy."
    ],
    "Pho/Pho_0002.jpg": [
        "A bowl of pho with beef slices, herbs and lime.",
        "Vietnamese beef noodle soup in a white bowl.",
    ],
}
HYPS = {
    "Abalone/Abalone_0081.jpg": "Abalones on crushed ice on a white plate.",
    "Agedashi_tofu/Agedashi_tofu_0001.jpg": (
        "Golden fried tofu pieces with scallions and bonito flakes in a white dish."
    ),
    "Chicken_and_waffles/Chicken_and_waffles_0089.jpg": "A plate of fried chicken and waffles with cream.",
    "Çiğ_köfte/Çiğ_köfte_0003.jpg": "Raw meatballs (çiğ köfte) with lettuce and lemon on a board",
    "Dong'an_chicken/Dong'an_chicken_0010.jpg": "",
    "Pho/Pho_0002.jpg": "A bowl of beef noodle soup with herbs and lime, e.g. basil.",
}
