FROM python:3.11-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends git \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY requirements.lock ./
RUN pip install --no-cache-dir -r requirements.lock
COPY . .
RUN DJANGO_STATIC_ROOT=/app/static python manage.py collectstatic --noinput
ENV DJANGO_STATIC_ROOT=/app/static PYTHONUNBUFFERED=1
RUN useradd --create-home skillgate && mkdir -p /app/var && chown skillgate /app/var
USER skillgate
EXPOSE 8000
CMD ["gunicorn", "config.wsgi", "--bind", "0.0.0.0:8000"]
