#!/bin/bash
# Llama-3-70B-shaped pre-training on 64 nodes of 8 GPUs with Megatron-LM (a test fixture in the
# style of examples/llama and examples/gpt3 launch scripts).
export CUDA_DEVICE_MAX_CONNECTIONS=1

GPUS_PER_NODE=8
NUM_NODES=${NUM_NODES:-64}
TP=8
PP=4
CHECKPOINT_PATH=/checkpoints/llama3-70b
DATA_PATH="0.5 /data/web_text_document 0.5 /data/code_text_document"

DISTRIBUTED_ARGS=(
    --nproc_per_node $GPUS_PER_NODE
    --nnodes $NUM_NODES
    --master_addr ${MASTER_ADDR:-localhost}
    --master_port 6000
)

MODEL_ARGS=(
    --use-mcore-models
    --num-layers 80
    --hidden-size 8192
    --ffn-hidden-size 28672
    --num-attention-heads 64
    --group-query-attention
    --num-query-groups 8
    --seq-length 8192
    --max-position-embeddings 8192
    --position-embedding-type rope
    --rotary-base 500000
    --normalization RMSNorm
    --swiglu
    --disable-bias-linear
    --untie-embeddings-and-output-weights
    --attention-dropout 0.0
    --hidden-dropout 0.0
)

TRAINING_ARGS=(
    --micro-batch-size 1
    --global-batch-size 1024
    --train-samples 183105469
    --lr 1.5e-4 --min-lr 1.5e-5 --lr-decay-style cosine
    --weight-decay 0.1 --clip-grad 1.0
    --bf16
    --use-flash-attn
    --recompute-granularity selective
)

PARALLEL_ARGS=(
    --tensor-model-parallel-size $TP
    --pipeline-model-parallel-size $PP
    --num-layers-per-virtual-pipeline-stage 5
    --sequence-parallel
    --use-distributed-optimizer
    --overlap-grad-reduce
    --overlap-param-gather
)

torchrun ${DISTRIBUTED_ARGS[@]} pretrain_gpt.py \
    ${MODEL_ARGS[@]} \
    ${TRAINING_ARGS[@]} \
    ${PARALLEL_ARGS[@]} \
    --tokenizer-type HuggingFaceTokenizer --tokenizer-model meta-llama/Meta-Llama-3-70B \
    --data-path $DATA_PATH \
    --save $CHECKPOINT_PATH --load $CHECKPOINT_PATH \
    --log-interval 1 --eval-interval 1000 --eval-iters 10 \
    --wandb-project llama3 2>&1 | tee train.log
