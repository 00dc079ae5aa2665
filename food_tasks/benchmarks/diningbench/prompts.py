"""DiningBench prompts.

Task prompts are the records' own ``prompt`` fields, sent verbatim (the official scripts add nothing).
Kept here: the Chain-of-Thought template of the paper (Table 5; its composition with the task prompt is
not released, so the ``_cot`` tasks are non-official) and the official VQA judge prompts of
``eval_vqa.py::evaluate_api_call`` (only the Chinese one is sent, for both languages).
"""

from __future__ import annotations

import re

# Paper Table 5, verbatim.
COT_TEMPLATE = (
    "Please strictly follow the Chain of Thought steps below for the analysis:\n\n"
    "1. Visual Observation: Describe the food's color, shape, texture, plating characteristics, and inferred cooking "
    "state.\n\n"
    "2. Ingredient Breakdown: Identify and list the main ingredients, auxiliary ingredients, seasonings, and sauce "
    "components in detail.\n\n"
    "3. Comprehensive Answer: Answer the question based on the original image content and the observations and "
    "breakdown above."
)


def with_cot(prompt: str) -> str:
    """Non-official CoT composition (paper Table 5 gives the template, not its placement; the official
    scripts have no CoT path): the dataset prompt, a blank line, the English template."""
    return f"{prompt}\n\n{COT_TEMPLATE}"


# eval_vqa.py::evaluate_api_call, ``prompt`` (sent), verbatim (a backslash at a line end only wraps the source line).
JUDGE_PROMPT_ZH = """你是一个智能评估助手。请根据【问题】和【标准答案】，判断【预测答案】是否正确。

### 判定规则
1. **语义等价**：只要预测答案表达的核心含义与标准答案一致，即为正确。
2. **是非题兼容**：对于是非类问题，如果标准答案是“是”或“否”，而预测答案是完整的陈述句（例如确认了问题中的事实），\
只要逻辑一致，必须判定为“是”。
   - *示例*：问题“是否油炸？”，标准答案“是”，预测答案“经历了油炸” -> 判定为“是”。
   - *示例*：问题“是否有毒？”，标准答案“没有”，预测答案“无毒” -> 判定为“是”。
3. **忽略冗余**：忽略预测答案中多余的语气词、标点或无关的解释性文字。

### 待评估数据
【问题】：
{question}

【标准答案】：
{gt_answer}

【预测答案】：
{pred_answer}

### 输出
请只回答一个字：“是” 或 “否”。"""

# ``prompt_en`` of the same function: defined there, never sent. Kept for reference only.
JUDGE_PROMPT_EN_UNUSED = """You are an intelligent evaluation assistant. Please judge whether the predicted answer is \
correct based on the [Question] and [Ground Truth].

### Evaluation Rules
1. **Semantic Equivalence**: As long as the core meaning expressed by the predicted answer is consistent with the \
ground truth, it is considered correct.
2. **Yes/No Question Compatibility**: For yes/no questions, if the ground truth is "Yes" or "No", and the predicted \
answer is a complete statement (e.g., confirming a fact in the question), as long as the logic is consistent, it must \
be judged as "Yes".
   - *Example*: Question "Is it fried?", Ground truth "Yes", Predicted answer "It has been fried" -> Judge as "Yes".
   - *Example*: Question "Is it toxic?", Ground truth "No", Predicted answer "Non-toxic" -> Judge as "Yes".
3. **Ignore Redundancy**: Ignore redundant modal particles, punctuation, or irrelevant explanatory text in the \
predicted answer.

### Data to Evaluate
[Question]:
{question}

[Ground Truth]:
{gt_answer}

[Predicted Answer]:
{pred_answer}

### Output
Please answer with only one word: "Yes" or "No"."""
JUDGE_PROMPT_VERSION = "diningbench-zh-v1"
JUDGE_MAX_TOKENS = 100  # official
JUDGE_TEMPERATURE = 0.0  # official


# The robust request's task text (ours, not official): the official prompt's rules and data, without its output
# section (the judge protocol, food_tasks.judge.protocol, asks for the verdict in its own format); the predicted
# answer's place holds the protocol's data block.
JUDGE_PROMPT_ROBUST = JUDGE_PROMPT_ZH[: JUDGE_PROMPT_ZH.index("\n\n### 输出")]
JUDGE_PROMPT_ROBUST_VERSION = "diningbench-zh-robust-v1"


def robust_judge_text(question: str, gt_answer: str, block: str) -> str:
    """The robust request's task text: :data:`JUDGE_PROMPT_ROBUST` filled (the data ``block`` as the predicted answer;
    values are not re-scanned)."""
    values = {"question": question, "gt_answer": gt_answer, "pred_answer": block}
    return _FIELD_RE.sub(lambda m: values[m.group(1)], JUDGE_PROMPT_ROBUST)


def judge_prompt(question: str, gt_answer: str, pred_answer: str) -> str:
    """The official judge prompt, filled as the official f-string fills it (values are not re-scanned)."""
    values = {"question": question, "gt_answer": gt_answer, "pred_answer": pred_answer}
    return _FIELD_RE.sub(lambda m: values[m.group(1)], JUDGE_PROMPT_ZH)


_FIELD_RE = re.compile(r"\{(question|gt_answer|pred_answer)\}")
