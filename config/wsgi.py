import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Operators' lists and searches are planned for their values (see DATABASES in settings).
os.environ.setdefault("DATABASE_PLAN_CACHE_MODE", "force_custom_plan")
application = get_wsgi_application()
