#pragma once
// The data layer (namespace tg::data): datasets shipped with the project and the batching
// that feeds an encoder. Every encoder task is per-position labelling (data/example.h); the
// sequence-to-sequence tasks (data/seq2seq_tasks.h) are input and output texts, of characters or
// of word tokens (data/seq2seq_tokenizer.h).
#include "data/char_lm.h"
#include "data/char_tokenizer.h"
#include "data/dataloader.h"
#include "data/example.h"
#include "data/grammar_corpus.h"
#include "data/labelled_file.h"
#include "data/metrics.h"
#include "data/random.h"
#include "data/seq2seq_file.h"
#include "data/seq2seq_tasks.h"
#include "data/seq2seq_tokenizer.h"
#include "data/tasks.h"
#include "data/text.h"
#include "data/vocab.h"
