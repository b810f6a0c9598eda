#pragma once
// The lessons' functions, one file each; lesson.cpp lists them in teaching order. Internal to
// the lessons layer.
#include "lessons/lesson.h"

namespace tg::lessons {

void attention_head_lesson(LessonLog& log);
void multi_head_lesson(LessonLog& log);
void encoder_layer_lesson(LessonLog& log);
void cross_entropy_lesson(LessonLog& log);
void gradcheck_lesson(LessonLog& log);
void nan_hunt_lesson(LessonLog& log);
void forward_vs_reverse_lesson(LessonLog& log);
void double_backward_lesson(LessonLog& log);

}  // namespace tg::lessons
